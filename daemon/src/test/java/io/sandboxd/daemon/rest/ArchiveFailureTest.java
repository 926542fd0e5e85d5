package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An archive upload that cannot finish leaves nothing (runtime-contract §4.3): a connection cut
 * mid-body, and a volume that fills up (507), both with the target and its parent as they were.
 */
class ArchiveFailureTest {
    @TempDir
    Path tmp;

    static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static byte[] bigArchive(int files, int size) {
        RawTar t = new RawTar().dir("d", 0755);
        for (int i = 0; i < files; i++) {
            byte[] content = new byte[size];
            Arrays.fill(content, (byte) i);
            t.file(RawTar.b("d/f" + i), 0644, content);
        }
        return t.bytes();
    }

    static List<String> quietNames(Path dir) {
        try {
            return names(dir);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aCutConnectionLeavesNothing() throws Exception {
        try (RestFixture f = new RestFixture(tmp)) {
            Files.createDirectories(f.root.resolve("parent"));
            byte[] archive = bigArchive(64, 64 * 1024);
            Path parent = f.root.resolve("parent");
            try (RawHttp c = RawHttp.connect("127.0.0.1", f.server.port(), Duration.ofSeconds(10))) {
                byte[] request = RawRequest.put("/sandboxd/v1alpha1/fs/archive?path=parent/target", archive)
                        .toBytes(c.hostPort());
                c.send(Arrays.copyOf(request, request.length - archive.length / 2));
                // the daemon is extracting the first half into its staging directory by now
                assertThat(Poll.until(Duration.ofSeconds(20), () -> !quietNames(parent)
                                .isEmpty()))
                        .as("a staging directory appears")
                        .isTrue();
                c.reset();
            }
            Poll.until(Duration.ofSeconds(20), () -> quietNames(parent).isEmpty());
            assertThat(names(f.root.resolve("parent"))).isEmpty();
            // and the daemon serves on
            RawResponse ok = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=parent"));
            assertThat(ok.status()).isEqualTo(200);
        }
    }

    private static boolean run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    @Test
    void aFullVolumeIs507AndLeavesNothing() throws Exception {
        Path root = Files.createDirectories(tmp.toRealPath().resolve("root"));
        // needs CAP_SYS_ADMIN (root in a normal container); reported as skipped otherwise
        assumeTrue(
                run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", root.toString()),
                "cannot mount a small tmpfs here");
        try (RestFixture f = new RestFixture(tmp)) {
            Files.createDirectories(root.resolve("target"));
            Files.writeString(root.resolve("target/old"), "old");
            RawResponse r = f.exchange(RawRequest.put(
                    "/sandboxd/v1alpha1/fs/archive?path=target&replace=true", bigArchive(48, 64 * 1024)));
            RestApiTest.assertError(r, 507, "INSUFFICIENT_STORAGE");
            assertThat(names(root)).containsExactly("target");
            assertThat(names(root.resolve("target"))).containsExactly("old");
            assertThat(Files.readString(root.resolve("target/old"))).isEqualTo("old");
            r = f.exchange(RawRequest.put("/sandboxd/v1alpha1/fs/archive?path=fresh", bigArchive(48, 64 * 1024)));
            RestApiTest.assertError(r, 507, "INSUFFICIENT_STORAGE");
            assertThat(names(root)).containsExactly("target");
        } finally {
            run("umount", root.toString());
        }
    }
}
