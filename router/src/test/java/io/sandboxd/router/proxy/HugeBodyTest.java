package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.router.testing.HttpBackend;
import io.sandboxd.router.testing.PatternStream;
import io.sandboxd.router.testing.RouterProcess;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * 1 GiB each way through a router running in its own JVM with 64 MiB of heap and 64 MiB of direct
 * memory: it can only succeed if the router streams. The body is generated on the fly and the
 * backend (or the client) hashes what arrives.
 */
class HugeBodyTest {
    static final long GIB = 1L << 30;
    static HttpBackend backend;
    static RouterProcess router;
    static final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        backend = new HttpBackend();
        router = RouterProcess.start(
                List.of("-Xmx64m", "-XX:MaxDirectMemorySize=64m"),
                "--cache-enabled=false",
                "--allow-loopback-pod-ip",
                "--io-threads",
                "2");
    }

    @AfterAll
    static void stop() throws Exception {
        router.close();
        backend.close();
    }

    private HttpRequest.Builder req(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.port + path))
                .timeout(Duration.ofMinutes(6))
                .header("X-Sandbox-ID", "big")
                .header("X-Sandbox-Pod-IP", "127.0.0.1")
                .header("X-Sandbox-Port", Integer.toString(backend.port()));
    }

    @Test
    void oneGibUploadAndDownloadStreamThroughA64MibRouter() throws Exception {
        PatternStream src = new PatternStream(GIB);
        HttpResponse<String> up = http.send(
                req("/upload").POST(BodyPublishers.ofInputStream(() -> src)).build(), BodyHandlers.ofString());
        String expected = HexFormat.of().formatHex(src.digest.digest());
        assertThat(up.statusCode()).as(router.output()).isEqualTo(200);
        assertThat(up.body()).isEqualTo(GIB + " " + expected);

        HttpResponse<InputStream> down = http.send(req("/download?bytes=" + GIB).build(), BodyHandlers.ofInputStream());
        assertThat(down.statusCode()).isEqualTo(200);
        var md = HttpBackend.sha256();
        long n = 0;
        try (InputStream in = down.body()) {
            byte[] buf = new byte[256 * 1024];
            int k;
            while ((k = in.read(buf)) > 0) {
                md.update(buf, 0, k);
                n += k;
            }
        }
        assertThat(n).isEqualTo(GIB);
        assertThat(HexFormat.of().formatHex(md.digest())).isEqualTo(expected);
        assertThat(router.process.isAlive()).isTrue();
        String out = router.output();
        assertThat(out).doesNotContain("OutOfMemoryError");
        assertThat(out).contains("authz-mode=allow-all").contains("UNSAFE FOR PRODUCTION");
    }
}
