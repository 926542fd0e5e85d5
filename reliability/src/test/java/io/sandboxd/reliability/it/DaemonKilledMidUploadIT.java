package io.sandboxd.reliability.it;

import io.sandboxd.reliability.client.Rest;
import io.sandboxd.reliability.daemon.DaemonLauncher;
import io.sandboxd.reliability.daemon.DaemonSpec;
import io.sandboxd.reliability.daemon.RunningDaemon;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kill -9} of the daemon while two uploads are in flight (one new file, one overwrite):
 * the in-flight temp files are never listed, and the next daemon start on the same root removes
 * them; the overwritten file keeps its old content and the new one does not exist.
 */
class DaemonKilledMidUploadIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void staleTempFilesAreCleanedAtNextStartAndNeverListed() throws Exception {
        DaemonSpec spec = TestDaemons.spec("DaemonKilledMidUploadIT");
        Path root = spec.rootDir();
        byte[] old = "old content".getBytes(StandardCharsets.UTF_8);
        RunningDaemon first = DaemonLauncher.start(spec);
        try {
            Rest rest = new Rest(first.restBase(), Optional.empty());
            assertThat(rest.put("data/old.txt", old).status()).isEqualTo(204);
            TreeSet<String> before = FileTree.of(root);

            List<RawHttp> uploads = new ArrayList<>();
            for (String target : List.of("data/old.txt", "data/new.bin")) {
                RawHttp http = new RawHttp(first.restPort(), Duration.ofSeconds(30));
                http.send("PUT /v1/files/" + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                        + "Content-Length: " + (1L << 30) + "\r\n\r\n");
                http.send(new byte[2 << 20]);
                uploads.add(http);
            }
            Poll.await(Duration.ofSeconds(20), () -> FileTree.of(root).size() >= before.size() + 2,
                    () -> "two in-flight temp files never appeared on disk: " + FileTree.of(root));
            TreeSet<String> inFlight = FileTree.of(root);
            assertThat(listing(rest, "data")).as("listing while uploads are in flight (on disk: %s)", inFlight)
                    .containsExactly("old.txt");

            first.killHard();
            for (RawHttp u : uploads) {
                u.close();
            }
            TreeSet<String> stale = FileTree.of(root);
            stale.removeAll(before);
            assertThat(stale).as("temp files left on disk by the killed daemon (precondition)").isNotEmpty();

            try (RunningDaemon second = DaemonLauncher.start(spec.withLogFile(TestDaemons.logFile("DaemonKilledMidUploadIT-restart")))) {
                Rest rest2 = new Rest(second.restBase(), Optional.empty());
                assertThat(listing(rest2, "data")).as("listing right after restart").containsExactly("old.txt");
                Poll.await(Duration.ofSeconds(10), () -> FileTree.of(root).equals(before),
                        () -> "after restart the root holds " + FileTree.of(root) + ", want " + before
                                + " (stale: " + stale + ")");
                assertThat(rest2.get("data/old.txt").body()).isEqualTo(old);
                assertThat(rest2.get("data/new.bin").status()).isEqualTo(404);
            }
        } finally {
            first.kill();
        }
    }

    private static List<String> listing(Rest rest, String dir) throws Exception {
        Rest.Response r = rest.get(dir);
        assertThat(r.status()).as("listing %s: %s", dir, r.text()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        for (JsonNode e : JSON.readTree(r.body()).get("entries")) {
            names.add(e.get("name").asString());
        }
        return names;
    }
}
