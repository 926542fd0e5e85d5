package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.FileDownload;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ResourceSnapshot;
import io.sandboxd.testkit.raw.RawRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client process killed with SIGKILL mid-upload and mid-download: no file and no temp file is
 * left by the upload, an overwritten file keeps its old content, and the daemon's fds and threads
 * come back (repeated, so a per-event leak shows).
 */
class ClientKilledIT {
    private static final int ROUNDS = 4;
    private static RunningDaemon daemon;
    private static SandboxdClient client;
    private static Path root;
    private static ResourceSnapshot baseline;

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx256m")
                .withLogName("ClientKilledIT")
                .start();
        root = daemon.rootDir();
        client = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase());
        byte[] big = new byte[32 << 20];
        new Random(7).nextBytes(big);
        assertThat(Http.exchange(daemon, Http.put("/v1/files/dl/big.bin", big)).status())
                .isEqualTo(204);
        assertThat(Http.exchange(
                                daemon,
                                Http.put("/v1/files/up/old.txt", "old content".getBytes(StandardCharsets.UTF_8)))
                        .status())
                .isEqualTo(204);
        // warm the paths under test once, so pools are at working size before the baseline
        try (FileDownload d = client.open("dl/big.bin")) {
            assertThat(d.info().status()).isEqualTo(200);
        }
        Poll.sleep(2500);
        baseline = daemon.observer().snapshot();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (daemon != null) {
            daemon.killTree();
        }
    }

    @Test
    void clientKilledMidUploadLeavesNoFileAndNoTemp() throws Exception {
        TreeSet<String> before = FileTree.of(root);
        for (int round = 0; round < ROUNDS; round++) {
            String target = round % 2 == 0 ? "up/new" + round + ".bin" : "up/old.txt";
            try (ChildJvm killable = ChildJvm.start(KillableClient.class, "upload", daemon.restBase(), target)) {
                killable.awaitLine("READY", 60);
                Poll.await(
                        Duration.ofSeconds(20),
                        () -> !FileTree.of(root).equals(before),
                        () -> "no temp file appeared on disk while 2 MiB of the upload were in flight");
                killable.killHard();
            }
            Poll.await(
                    Duration.ofSeconds(30),
                    () -> FileTree.of(root).equals(before),
                    () -> "files on disk after the killed upload: " + FileTree.of(root) + ", before: " + before);
            assertThat(new String(client.readBytes("up/old.txt"), StandardCharsets.UTF_8))
                    .isEqualTo("old content");
            assertThat(Http.exchange(daemon, RawRequest.get("/v1/files/up/new" + round + ".bin"))
                            .status())
                    .isEqualTo(404);
        }
        assertBackToBaseline();
    }

    @Test
    void clientKilledMidDownloadReleasesTheConnection() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            try (ChildJvm killable =
                    ChildJvm.start(KillableClient.class, "download", daemon.restBase(), "dl/big.bin")) {
                killable.awaitLine("READY", 60);
                killable.killHard();
            }
        }
        MessageDigest got = MessageDigest.getInstance("SHA-256");
        try (FileDownload d = client.open("dl/big.bin")) {
            assertThat(d.info().status()).isEqualTo(200);
            new DigestInputStream(d.body(), got).transferTo(java.io.OutputStream.nullOutputStream());
        }
        assertThat(got.digest()).isEqualTo(MessageDigest.getInstance("SHA-256").digest(bigContent()));
        assertBackToBaseline();
    }

    private static byte[] bigContent() {
        byte[] big = new byte[32 << 20];
        new Random(7).nextBytes(big);
        return big;
    }

    private static void assertBackToBaseline() {
        Poll.await(
                Duration.ofSeconds(60),
                () -> {
                    ResourceSnapshot now = daemon.observer().snapshot();
                    return now.fds() <= baseline.fds() + 4 && now.threads() <= baseline.threads() + 6;
                },
                () -> "daemon did not return to baseline: now "
                        + daemon.observer().snapshot().describe() + ", baseline " + baseline.describe());
        assertThat(daemon.observer().alive()).isTrue();
    }
}
