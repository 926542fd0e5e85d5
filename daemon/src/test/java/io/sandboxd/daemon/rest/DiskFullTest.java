package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A full volume is 507 INSUFFICIENT_STORAGE, leaves no temp, and keeps the old content. */
class DiskFullTest {
    @TempDir
    Path tmp;

    private static boolean run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    @Test
    void fullVolumeIs507AndLeavesNothingBehind() throws Exception {
        Path root = Files.createDirectories(tmp.toRealPath().resolve("root"));
        // needs CAP_SYS_ADMIN (root in a normal container); reported as skipped otherwise
        assumeTrue(
                run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", root.toString()),
                "cannot mount a small tmpfs here");
        try (RestFixture f = new RestFixture(tmp)) {
            assertThat(f.exchange(RawRequest.put("/v1/files/keep.txt", "old".getBytes())
                                    .header("Content-Type", "application/octet-stream"))
                            .status())
                    .isEqualTo(204);
            RawResponse r = f.exchange(RawRequest.put("/v1/files/keep.txt", new byte[2 << 20])
                    .header("Content-Type", "application/octet-stream"));
            RestApiTest.assertError(r, 507, "INSUFFICIENT_STORAGE");
            r = f.exchange(RawRequest.put("/v1/files/new.bin", new byte[2 << 20])
                    .header("Content-Type", "application/octet-stream"));
            RestApiTest.assertError(r, 507, "INSUFFICIENT_STORAGE");
            assertThat(Files.readString(root.resolve("keep.txt"))).isEqualTo("old");
            try (var s = Files.list(root)) {
                assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("keep.txt");
            }
        } finally {
            run("umount", root.toString());
        }
    }
}
