package io.sandboxd.reliability.it;

import com.google.protobuf.ByteString;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.reliability.client.Grpc;
import io.sandboxd.reliability.client.Rest;
import io.sandboxd.reliability.daemon.DaemonLauncher;
import io.sandboxd.reliability.daemon.RunningDaemon;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

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
    private static Rest rest;
    private static byte[] keep;

    @BeforeAll
    static void mountTmpfsAndStart() throws Exception {
        mount = Files.createTempDirectory("sandboxd-diskfull-");
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail("cannot mount an 8 MiB tmpfs at " + mount + " (this test needs root or CAP_SYS_ADMIN, as CI has): " + out);
        }
        daemon = DaemonLauncher.start(TestDaemons.spec("DiskFullIT", mount));
        rest = new Rest(daemon.restBase(), Optional.empty());
        keep = new byte[3 * MIB];
        new Random(1).nextBytes(keep);
        assertThat(rest.put("keep.bin", keep).status()).isEqualTo(204);
    }

    @AfterAll
    static void stopAndUnmount() throws Exception {
        if (daemon != null) {
            daemon.kill();
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
        RawHttp.Response r = putStreaming("big.bin", 16 * MIB, true);
        assertThat(r.status()).as("PUT of 16 MiB into ~5 MiB free; body: %s", r.text()).isEqualTo(507);
        assertThat(r.header("content-type")).startsWith("application/json");
        assertThat(r.text()).contains("INSUFFICIENT_STORAGE").doesNotContain(mount.toString());
        Poll.await(Duration.ofSeconds(20), () -> FileTree.of(mount).equals(before),
                () -> "files on disk after the failed PUT: " + FileTree.of(mount) + ", before: " + before);
        assertThat(rest.get("big.bin").status()).isEqualTo(404);
        assertSpaceGivenBack();
    }

    @Test
    @Order(2)
    void chunkedUploadWithoutLengthIs507Too() throws Exception {
        TreeSet<String> before = FileTree.of(mount);
        RawHttp.Response r = putStreaming("sub/chunked.bin", 16 * MIB, false);
        assertThat(r.status()).as("chunked PUT of 16 MiB; body: %s", r.text()).isEqualTo(507);
        Poll.await(Duration.ofSeconds(20), () -> FileTree.of(mount).stream().noneMatch(f -> f.contains("chunked")
                        && !f.endsWith("/")) && FileTree.of(mount).containsAll(before),
                () -> "files on disk after the failed chunked PUT: " + FileTree.of(mount));
        assertSpaceGivenBack();
    }

    @Test
    @Order(3)
    void failedOverwriteKeepsTheOldContent() throws Exception {
        RawHttp.Response r = putStreaming("keep.bin", 16 * MIB, true);
        assertThat(r.status()).as("overwrite that does not fit; body: %s", r.text()).isEqualTo(507);
        Rest.Response got = rest.get("keep.bin");
        assertThat(got.status()).isEqualTo(200);
        assertThat(got.body()).as("keep.bin after the failed overwrite").isEqualTo(keep);
        assertSpaceGivenBack();
    }

    @Test
    @Order(4)
    void daemonStaysHealthyAndServesAfterwards() throws Exception {
        assertThat(rest.raw("GET", "/v1/health", null).status()).isEqualTo(200);
        byte[] small = "still works".getBytes(StandardCharsets.UTF_8);
        assertThat(rest.put("after/small.txt", small).status()).isEqualTo(204);
        assertThat(rest.get("after/small.txt").body()).isEqualTo(small);
        try (Grpc grpc = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty())) {
            ExecuteResponse e = grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).execute(ExecuteRequest.newBuilder()
                    .setConfig(ProcessConfig.newBuilder().addAllCommand(java.util.List.of("cat", "after/small.txt"))).build());
            assertThat(e.getExitCode()).isZero();
            assertThat(e.getStdout()).isEqualTo(ByteString.copyFrom(small));
        }
        assertThat(daemon.observer().alive()).isTrue();
    }

    /** Free space is back to what keep.bin (and tiny files) leave: no hidden temp file holds blocks. */
    private static void assertSpaceGivenBack() {
        Poll.await(Duration.ofSeconds(20), () -> usedBytes() < 4 * MIB,
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

    private static RawHttp.Response putStreaming(String path, int size, boolean withLength) throws IOException {
        try (RawHttp http = new RawHttp(daemon.restPort(), Duration.ofSeconds(60))) {
            String head = "PUT /v1/files/" + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                    + (withLength ? "Content-Length: " + size + "\r\n" : "Transfer-Encoding: chunked\r\n") + "\r\n";
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
