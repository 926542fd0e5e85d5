package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.ByteString;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Disk full: the root is an 8 MiB tmpfs. A PUT that does not fit → 507 INSUFFICIENT_STORAGE,
 * no partial or temp file, an overwritten file keeps its old content, the space is given back,
 * and the daemon keeps serving.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DiskFullIT {
    private static final int MIB = 1 << 20;
    private static Path mount;
    private static RunningDaemon daemon;
    private static SandboxdClient client;
    private static byte[] keep;

    @BeforeAll
    static void mountTmpfsAndStart() throws Exception {
        mount = Files.createTempDirectory("sandboxd-diskfull-");
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail("cannot mount an 8 MiB tmpfs at " + mount + " (this test needs root or CAP_SYS_ADMIN, as CI has): "
                    + out);
        }
        daemon = DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx256m")
                .withRootDir(mount)
                .withLogName("DiskFullIT")
                .start();
        client = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase());
        keep = new byte[3 * MIB];
        new Random(1).nextBytes(keep);
        assertThat(Http.exchange(daemon, Http.put("/v1/files/keep.bin", keep)).status())
                .isEqualTo(204);
    }

    @AfterAll
    static void stopAndUnmount() throws Exception {
        if (client != null) {
            client.close();
        }
        if (daemon != null) {
            daemon.killTree();
        }
        if (mount != null) {
            new ProcessBuilder("umount", mount.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
            Files.deleteIfExists(mount);
        }
    }

    @Test
    @Order(1)
    void uploadLargerThanFreeSpaceIs507AndLeavesNothing() throws Exception {
        TreeSet<String> before = FileTree.of(mount);
        RawResponse r = putStreaming("big.bin", 16 * MIB, true);
        assertThat(r.status())
                .as("PUT of 16 MiB into ~5 MiB free; body: %s", r.text())
                .isEqualTo(507);
        assertThat(r.header("content-type")).startsWith("application/json");
        assertThat(r.text()).contains("INSUFFICIENT_STORAGE").doesNotContain(mount.toString());
        Poll.await(
                Duration.ofSeconds(20),
                () -> FileTree.of(mount).equals(before),
                () -> "files on disk after the failed PUT: " + FileTree.of(mount) + ", before: " + before);
        assertThat(Http.exchange(daemon, RawRequest.get("/v1/files/big.bin")).status())
                .isEqualTo(404);
        assertSpaceGivenBack();
    }

    @Test
    @Order(2)
    void chunkedUploadWithoutLengthIs507Too() throws Exception {
        TreeSet<String> before = FileTree.of(mount);
        RawResponse r = putStreaming("sub/chunked.bin", 16 * MIB, false);
        assertThat(r.status()).as("chunked PUT of 16 MiB; body: %s", r.text()).isEqualTo(507);
        Poll.await(
                Duration.ofSeconds(20),
                () -> FileTree.of(mount).stream().noneMatch(f -> f.contains("chunked") && !f.endsWith("/"))
                        && FileTree.of(mount).containsAll(before),
                () -> "files on disk after the failed chunked PUT: " + FileTree.of(mount));
        assertSpaceGivenBack();
    }

    @Test
    @Order(3)
    void failedOverwriteKeepsTheOldContent() throws Exception {
        RawResponse r = putStreaming("keep.bin", 16 * MIB, true);
        assertThat(r.status())
                .as("overwrite that does not fit; body: %s", r.text())
                .isEqualTo(507);
        RawResponse got = Http.exchange(daemon, RawRequest.get("/v1/files/keep.bin"));
        assertThat(got.status()).isEqualTo(200);
        assertThat(got.body()).as("keep.bin after the failed overwrite").isEqualTo(keep);
        assertSpaceGivenBack();
    }

    @Test
    @Order(4)
    void daemonStaysHealthyAndServesAfterwards() throws Exception {
        assertThat(Http.exchange(daemon, RawRequest.get("/v1/health")).status()).isEqualTo(200);
        byte[] small = "still works".getBytes(StandardCharsets.UTF_8);
        assertThat(Http.exchange(daemon, Http.put("/v1/files/after/small.txt", small))
                        .status())
                .isEqualTo(204);
        assertThat(client.readBytes("after/small.txt")).isEqualTo(small);
        ExecResult e = client.execute("cat", "after/small.txt");
        assertThat(e.exitCode()).isZero();
        assertThat(e.stdout()).isEqualTo(ByteString.copyFrom(small));
        assertThat(daemon.observer().alive()).isTrue();
    }

    /** Free space is back to what keep.bin (and tiny files) leave: no hidden temp file holds blocks. */
    private static void assertSpaceGivenBack() {
        Poll.await(
                Duration.ofSeconds(20),
                () -> usedBytes() < 4 * MIB,
                () -> "tmpfs still has " + usedBytes() + " bytes used (keep.bin is 3 MiB)");
    }

    private static long usedBytes() {
        try {
            var store = Files.getFileStore(mount);
            return store.getTotalSpace() - store.getUnallocatedSpace();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static RawResponse putStreaming(String path, int size, boolean withLength) throws IOException {
        try (RawHttp http = RawHttp.connect("127.0.0.1", daemon.restPort(), Duration.ofSeconds(60))) {
            RawRequest head = RawRequest.of("PUT", "/v1/files/" + path)
                    .header("Host", "127.0.0.1")
                    .header("Content-Type", "application/octet-stream")
                    .header(
                            withLength ? "Content-Length" : "Transfer-Encoding",
                            withLength ? Integer.toString(size) : "chunked");
            InputStream body = withLength ? new ZeroStream(size) : new ChunkedZeroStream(size);
            return http.exchange(head, body);
        }
    }

    /** {@code n} zero bytes without holding them in memory. */
    static final class ZeroStream extends InputStream {
        private long left;

        ZeroStream(long n) {
            this.left = n;
        }

        @Override
        public int read() {
            if (left <= 0) {
                return -1;
            }
            left--;
            return 0;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (left <= 0) {
                return -1;
            }
            int n = (int) Math.min(len, left);
            java.util.Arrays.fill(b, off, off + n, (byte) 0);
            left -= n;
            return n;
        }
    }

    /** {@code n} zero bytes in 64 KiB HTTP chunks, then the last chunk. */
    static final class ChunkedZeroStream extends InputStream {
        private final InputStream framed;

        ChunkedZeroStream(int n) {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            int chunk = 64 * 1024;
            byte[] zeros = new byte[chunk];
            for (int left = n; left > 0; left -= chunk) {
                int len = Math.min(chunk, left);
                b.writeBytes((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                b.write(zeros, 0, len);
                b.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            b.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            framed = new java.io.ByteArrayInputStream(b.toByteArray());
        }

        @Override
        public int read() throws IOException {
            return framed.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return framed.read(b, off, len);
        }
    }
}
