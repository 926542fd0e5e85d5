package io.sandboxd.reliability.it;

import io.sandboxd.reliability.client.Rest;
import io.sandboxd.reliability.daemon.DaemonLauncher;
import io.sandboxd.reliability.daemon.RunningDaemon;
import io.sandboxd.reliability.proc.ResourceSnapshot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client process killed with SIGKILL mid-upload and mid-download: no file and no temp file is
 * left by the upload, an overwritten file keeps its old content, and the daemon's fds and threads
 * come back (repeated, so a per-event leak shows).
 */
class ClientKilledIT {
    private static final int ROUNDS = 4;
    private static RunningDaemon daemon;
    private static Rest rest;
    private static Path root;
    private static ResourceSnapshot baseline;

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonLauncher.start(TestDaemons.spec("ClientKilledIT"));
        root = daemon.spec().rootDir();
        rest = new Rest(daemon.restBase(), Optional.empty());
        byte[] big = new byte[32 << 20];
        new Random(7).nextBytes(big);
        assertThat(rest.put("dl/big.bin", big).status()).isEqualTo(204);
        assertThat(rest.put("up/old.txt", "old content".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(204);
        // warm the paths under test once, so pools are at working size before the baseline
        assertThat(rest.get("dl/big.bin").status()).isEqualTo(200);
        Poll.sleep(2500);
        baseline = daemon.observer().quick();
    }

    @AfterAll
    static void stop() {
        if (daemon != null) {
            daemon.kill();
        }
    }

    @Test
    void clientKilledMidUploadLeavesNoFileAndNoTemp() throws Exception {
        TreeSet<String> before = FileTree.of(root);
        for (int round = 0; round < ROUNDS; round++) {
            String target = round % 2 == 0 ? "up/new" + round + ".bin" : "up/old.txt";
            try (ChildJvm client = ChildJvm.start(KillableClient.class, "upload", Integer.toString(daemon.restPort()), target)) {
                client.awaitLine("READY", 60);
                Poll.await(Duration.ofSeconds(20), () -> !FileTree.of(root).equals(before),
                        () -> "no temp file appeared on disk while 2 MiB of the upload were in flight");
                client.killHard();
            }
            Poll.await(Duration.ofSeconds(30), () -> FileTree.of(root).equals(before),
                    () -> "files on disk after the killed upload: " + FileTree.of(root) + ", before: " + before);
            assertThat(rest.get("up/old.txt").text()).isEqualTo("old content");
            assertThat(rest.get("up/new" + round + ".bin").status()).isEqualTo(404);
        }
        assertBackToBaseline();
    }

    @Test
    void clientKilledMidDownloadReleasesTheConnection() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            try (ChildJvm client = ChildJvm.start(KillableClient.class, "download", Integer.toString(daemon.restPort()), "dl/big.bin")) {
                client.awaitLine("READY", 60);
                client.killHard();
            }
        }
        Rest.Response r = rest.get("dl/big.bin");
        assertThat(r.status()).isEqualTo(200);
        assertThat(MessageDigest.getInstance("SHA-256").digest(r.body()))
                .isEqualTo(MessageDigest.getInstance("SHA-256").digest(bigContent()));
        assertBackToBaseline();
    }

    private static byte[] bigContent() {
        byte[] big = new byte[32 << 20];
        new Random(7).nextBytes(big);
        return big;
    }

    private static void assertBackToBaseline() {
        Poll.await(Duration.ofSeconds(60), () -> {
            ResourceSnapshot now = daemon.observer().quick();
            return now.fds() <= baseline.fds() + 4 && now.threads() <= baseline.threads() + 6;
        }, () -> "daemon did not return to baseline: now " + daemon.observer().quick().describe()
                + ", baseline " + baseline.describe());
        assertThat(daemon.observer().alive()).isTrue();
    }
}
