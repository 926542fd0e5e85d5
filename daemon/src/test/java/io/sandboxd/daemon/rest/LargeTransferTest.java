package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.daemon.fs.MappedWindows;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bulk paths: GET of files large enough to go out as mapped windows plus a buffered tail,
 * ranges across window edges, and PUT bodies large enough to be written chunk by chunk.
 */
class LargeTransferTest {
    private static final int WINDOW = (int) MappedWindows.WINDOW;

    @TempDir
    Path tmp;

    RestFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new RestFixture(tmp);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void largeFileComesBackByteForByteWholeAndInRanges() throws Exception {
        byte[] data = random(2 * WINDOW + 12_345, 1);
        Files.write(f.root.resolve("big.bin"), data);
        RawResponse r = f.exchange(RawRequest.get("/v1/files/big.bin"));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Length")).isEqualTo(Integer.toString(data.length));
        assertThat(Arrays.equals(r.body(), data)).as("whole body").isTrue();

        int[][] ranges = {
            {1000, WINDOW + 500}, // unaligned start, across a window edge
            {WINDOW - 1, 2 * WINDOW}, // exactly one window long, off by one
            {0, 2 * WINDOW - 1}, // exactly two windows, no tail
            {7, data.length - 1}, // to the end: windows and a tail
        };
        for (int[] rg : ranges) {
            r = f.exchange(RawRequest.of("GET", "/v1/files/big.bin").header("Range", "bytes=" + rg[0] + "-" + rg[1]));
            assertThat(r.status()).isEqualTo(206);
            assertThat(r.header("Content-Range")).isEqualTo("bytes " + rg[0] + "-" + rg[1] + "/" + data.length);
            assertThat(Arrays.equals(r.body(), Arrays.copyOfRange(data, rg[0], rg[1] + 1)))
                    .as("range %d-%d", rg[0], rg[1])
                    .isTrue();
        }
        RawResponse h = f.exchange(RawRequest.head("/v1/files/big.bin"));
        assertThat(h.header("Content-Length")).isEqualTo(Integer.toString(data.length));
        assertThat(h.body()).isEmpty();
    }

    @Test
    void largeUploadIsStoredByteForByteAndItsDigestChecked() throws Exception {
        byte[] data = random(3 * WINDOW + 777, 2);
        String sha =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        RawResponse r = f.exchange(RawRequest.of("PUT", "/v1/files/up/big.bin")
                .header("Content-Type", "application/octet-stream")
                .header("X-Content-SHA256", sha)
                .body(data));
        assertThat(r.status()).as(r.describe()).isEqualTo(204);
        assertThat(Arrays.equals(Files.readAllBytes(f.root.resolve("up/big.bin")), data))
                .isTrue();

        byte[] other = random(data.length, 3);
        r = f.exchange(RawRequest.of("PUT", "/v1/files/up/big.bin")
                .header("Content-Type", "application/octet-stream")
                .header("X-Content-SHA256", sha)
                .body(other));
        assertThat(r.status()).isEqualTo(400);
        assertThat(Arrays.equals(Files.readAllBytes(f.root.resolve("up/big.bin")), data))
                .as("old content kept")
                .isTrue();
        try (var s = Files.list(f.root.resolve("up"))) {
            assertThat(s).hasSize(1);
        }
    }
}
