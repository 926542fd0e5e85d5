package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code kill -9} of the daemon while two uploads are in flight (one new file, one overwrite):
 * the in-flight temp files are never listed, and the next daemon start on the same root removes
 * them; the overwritten file keeps its old content and the new one does not exist.
 */
class DaemonKilledMidUploadIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void staleTempFilesAreCleanedAtNextStartAndNeverListed() throws Exception {
        DaemonSpec spec = DaemonSpec.packagedJar().withJvmOptions("-Xmx256m").withLogName("DaemonKilledMidUploadIT");
        byte[] old = "old content".getBytes(StandardCharsets.UTF_8);
        RunningDaemon first = spec.start();
        Path root = first.rootDir();
        try {
            assertThat(Http.exchange(first, Http.put("/v1/files/data/old.txt", old))
                            .status())
                    .isEqualTo(204);
            TreeSet<String> before = FileTree.of(root);

            List<RawHttp> uploads = new ArrayList<>();
            for (String target : List.of("data/old.txt", "data/new.bin")) {
                RawHttp http = RawHttp.connect("127.0.0.1", first.restPort(), Duration.ofSeconds(30));
                http.send("PUT /v1/files/" + target
                        + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                        + "Content-Length: " + (1L << 30) + "\r\n\r\n");
                http.send(new byte[2 << 20]);
                uploads.add(http);
            }
            Poll.await(
                    Duration.ofSeconds(20),
                    () -> FileTree.of(root).size() >= before.size() + 2,
                    () -> "two in-flight temp files never appeared on disk: " + FileTree.of(root));
            TreeSet<String> inFlight = FileTree.of(root);
            assertThat(listing(first, "data"))
                    .as("listing while uploads are in flight (on disk: %s)", inFlight)
                    .containsExactly("old.txt");

            first.sigkill();
            for (RawHttp u : uploads) {
                u.close();
            }
            TreeSet<String> stale = FileTree.of(root);
            stale.removeAll(before);
            assertThat(stale)
                    .as("temp files left on disk by the killed daemon (precondition)")
                    .isNotEmpty();

            try (RunningDaemon second = spec.withRootDir(root)
                            .withLogName("DaemonKilledMidUploadIT-restart")
                            .start();
                    SandboxdClient client = SandboxdClient.connect(second.grpcTarget(), second.restBase())) {
                assertThat(listing(second, "data"))
                        .as("listing right after restart")
                        .containsExactly("old.txt");
                Poll.await(
                        Duration.ofSeconds(10),
                        () -> FileTree.of(root).equals(before),
                        () -> "after restart the root holds " + FileTree.of(root) + ", want " + before + " (stale: "
                                + stale + ")");
                assertThat(client.readBytes("data/old.txt")).isEqualTo(old);
                assertThat(Http.exchange(second, RawRequest.get("/v1/files/data/new.bin"))
                                .status())
                        .isEqualTo(404);
            }
        } finally {
            first.killTree();
            first.close(); // the root the launcher made for it, which the restart used too
        }
    }

    private static List<String> listing(RunningDaemon daemon, String dir) throws Exception {
        RawResponse r = Http.exchange(daemon, RawRequest.get("/v1/files/" + dir));
        assertThat(r.status()).as("listing %s: %s", dir, r.text()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        for (JsonNode e : JSON.readTree(r.body()).get("entries")) {
            names.add(e.get("name").asString());
        }
        return names;
    }
}
