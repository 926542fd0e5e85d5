package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 1 GiB up and down through a daemon whose heap is capped at 64 MiB, SHA-256 checked both ways.
 * The data is generated while sending (no 1 GiB arrays), and the file is removed afterwards.
 */
class LargeFileIT {
    static final long SIZE = 1L << 30;

    @TempDir
    Path tmp;

    /** Deterministic, incompressible-looking bytes (xorshift), produced block by block. */
    static void fill(byte[] block, long[] state) {
        long x = state[0];
        for (int i = 0; i < block.length; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            for (int j = 0; j < 8; j++) {
                block[i + j] = (byte) (x >>> (8 * j));
            }
        }
        state[0] = x;
    }

    @Test
    void oneGibibyteUpAndDownWithA64MiBHeap() throws Exception {
        Path root = tmp.resolve("ws");
        try (RunningDaemon d = DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx64m")
                .withRootDir(root)
                .withArgs("--log-format", "json")
                .withReadyTimeout(Duration.ofSeconds(60))
                .withLogs(tmp, "daemon")
                .start()) {
            String url = d.restBase() + "/v1/files/big%2Fone.bin";

            MessageDigest up = MessageDigest.getInstance("SHA-256");
            HttpURLConnection put = (HttpURLConnection) URI.create(url).toURL().openConnection();
            put.setRequestMethod("PUT");
            put.setDoOutput(true);
            put.setFixedLengthStreamingMode(SIZE);
            put.setRequestProperty("Content-Type", "application/octet-stream");
            byte[] block = new byte[256 * 1024];
            long[] state = {0x9E3779B97F4A7C15L};
            long t0 = System.nanoTime();
            try (OutputStream out = put.getOutputStream()) {
                for (long sent = 0; sent < SIZE; sent += block.length) {
                    fill(block, state);
                    up.update(block);
                    out.write(block);
                }
            }
            assertThat(put.getResponseCode()).isEqualTo(204);
            long putNanos = System.nanoTime() - t0;
            long rssAfterPut = d.observer().rssBytes() / 1024;
            assertThat(Files.size(root.resolve("big/one.bin"))).isEqualTo(SIZE);

            MessageDigest down = MessageDigest.getInstance("SHA-256");
            HttpURLConnection get = (HttpURLConnection) URI.create(url).toURL().openConnection();
            get.setRequestProperty("Accept-Encoding", "gzip");
            long t1 = System.nanoTime();
            long received = 0;
            try (InputStream in = get.getInputStream()) {
                assertThat(get.getResponseCode()).isEqualTo(200);
                assertThat(get.getContentLengthLong()).isEqualTo(SIZE);
                assertThat(get.getHeaderField("Content-Encoding")).isNull();
                int n;
                while ((n = in.read(block)) > 0) {
                    down.update(block, 0, n);
                    received += n;
                }
            }
            long getNanos = System.nanoTime() - t1;
            assertThat(received).isEqualTo(SIZE);
            String upHex = HexFormat.of().formatHex(up.digest());
            assertThat(HexFormat.of().formatHex(down.digest())).isEqualTo(upHex);
            System.out.printf(
                    "1 GiB PUT %.0f MiB/s, GET %.0f MiB/s, daemon RSS after PUT %d MiB, after GET %d MiB (-Xmx64m)%n",
                    1024 / (putNanos / 1e9),
                    1024 / (getNanos / 1e9),
                    rssAfterPut / 1024,
                    d.observer().rssBytes() / 1024 / 1024);

            assertThat(RawHttp.exchange(
                                    "127.0.0.1",
                                    d.restPort(),
                                    RawRequest.get("/v1/health").closing(),
                                    Duration.ofSeconds(5))
                            .status())
                    .isEqualTo(200);
            d.signal("TERM");
            assertThat(d.awaitExit(Duration.ofSeconds(30))).hasValue(0);
            assertThat(d.stdout() + d.stderr()).doesNotContain("OutOfMemoryError");
        } finally {
            Files.deleteIfExists(root.resolve("big/one.bin"));
        }
    }
}
