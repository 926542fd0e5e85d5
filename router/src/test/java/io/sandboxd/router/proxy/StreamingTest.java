package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.router.testing.HttpBackend;
import io.sandboxd.router.testing.PatternStream;
import io.sandboxd.router.testing.RouterFixture;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** SSE and chunked streaming through an in-process router. */
class StreamingTest {
    static HttpBackend backend;
    static RouterFixture router;

    @BeforeAll
    static void start() throws Exception {
        backend = new HttpBackend();
        router = new RouterFixture(RouterFixture.config().withAllowLoopbackPodIp(true));
    }

    @AfterAll
    static void stop() {
        router.close();
        backend.close();
    }

    /**
     * The backend writes event N and then blocks until the test has seen it: if the router held
     * events back (buffering, or flushing only at the end) the read below would time out.
     */
    @Test
    void sseEventsArriveOneByOne() throws Exception {
        HttpResponse<InputStream> r = router.http.send(
                router.toPodIp(backend.port(), "/sse?events=3")
                        .header("Accept", "text/event-stream")
                        .build(),
                BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            for (int i = 1; i <= 3; i++) {
                String event =
                        CompletableFuture.supplyAsync(() -> readEvent(in)).get(60, TimeUnit.SECONDS);
                assertThat(event).isEqualTo("id: " + i + "|data: event-" + i);
                backend.releaseNextEvent();
            }
            assertThat(in.readLine()).isNull();
        }
    }

    private static String readEvent(BufferedReader in) {
        try {
            StringBuilder b = new StringBuilder();
            String line;
            while ((line = in.readLine()) != null && !line.isEmpty()) {
                b.append(b.length() == 0 ? "" : "|").append(line);
            }
            return b.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void chunkedUploadAndDownloadKeepEveryByte() throws Exception {
        long size = 48L * 1024 * 1024 + 13;
        PatternStream src = new PatternStream(size);
        HttpResponse<String> up = router.http.send(
                router.toPodIp(backend.port(), "/upload")
                        .POST(BodyPublishers.ofInputStream(() -> src))
                        .build(),
                BodyHandlers.ofString());
        String expected = java.util.HexFormat.of().formatHex(src.digest.digest());
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(up.body()).isEqualTo(size + " " + expected);
        assertThat(backend.last().header("transfer-encoding")).isEqualTo("chunked");

        HttpResponse<InputStream> down = router.http.send(
                router.toPodIp(backend.port(), "/download?bytes=" + size).build(), BodyHandlers.ofInputStream());
        assertThat(down.statusCode()).isEqualTo(200);
        assertThat(down.headers().firstValue("transfer-encoding")).hasValue("chunked");
        var md = HttpBackend.sha256();
        long n = 0;
        try (InputStream in = down.body()) {
            byte[] buf = new byte[64 * 1024];
            int k;
            while ((k = in.read(buf)) > 0) {
                md.update(buf, 0, k);
                n += k;
            }
        }
        assertThat(n).isEqualTo(size);
        assertThat(java.util.HexFormat.of().formatHex(md.digest())).isEqualTo(expected);
    }

    @Test
    void contentLengthBodyIsForwardedWithItsLength() throws Exception {
        byte[] body = new byte[3 * 1024 * 1024 + 1];
        new java.util.Random(7).nextBytes(body);
        HttpResponse<String> up = router.http.send(
                router.toPodIp(backend.port(), "/upload")
                        .PUT(BodyPublishers.ofByteArray(body))
                        .build(),
                BodyHandlers.ofString());
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(up.body())
                .isEqualTo(body.length + " "
                        + java.util.HexFormat.of()
                                .formatHex(HttpBackend.sha256().digest(body)));
        assertThat(backend.last().header("content-length")).isEqualTo(Integer.toString(body.length));
    }
}
