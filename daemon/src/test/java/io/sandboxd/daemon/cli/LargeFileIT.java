package io.sandboxd.daemon.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

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
        try (JarProcess d = JarProcess.start(List.of(JarProcess.java().get(0), "-Xmx64m", "-jar", JarProcess.jar().toString()),
                root, tmp, Map.of(), "--log-format", "json")) {
            d.awaitHealthy(60);
            String url = "http://127.0.0.1:" + d.restPort + "/v1/files/big%2Fone.bin";

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
            long rssAfterPut = d.rssKiB();
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
            System.out.printf("1 GiB PUT %.0f MiB/s, GET %.0f MiB/s, daemon RSS after PUT %d MiB, after GET %d MiB (-Xmx64m)%n",
                    1024 / (putNanos / 1e9), 1024 / (getNanos / 1e9), rssAfterPut / 1024, d.rssKiB() / 1024);

            assertThat(d.status("/v1/health")).isEqualTo(200);
            d.sigterm();
            assertThat(d.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(d.process.exitValue()).isZero();
            assertThat(Files.readString(d.log)).doesNotContain("OutOfMemoryError");
        } finally {
            Files.deleteIfExists(root.resolve("big/one.bin"));
        }
    }
}
