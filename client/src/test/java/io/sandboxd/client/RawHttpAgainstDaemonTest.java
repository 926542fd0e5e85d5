package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The raw HTTP helper against the real daemon: pipelining, half-close, chunked and sendfile uploads, early answers. */
class RawHttpAgainstDaemonTest {
    static RunningDaemon daemon;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start("raw-http");
    }

    @AfterAll
    static void stop() {
        daemon.close();
    }

    @Test
    void aRawEncodedSlashAndPipelinedRequestsOnOneConnection() throws Exception {
        Files.createDirectories(daemon.rootDir().resolve("raw"));
        Files.writeString(daemon.rootDir().resolve("raw/f.txt"), "pipelined");
        try (RawHttp h = RawHttp.connect("127.0.0.1", daemon.restPort(), Duration.ofSeconds(10))) {
            h.send(RawRequest.get("/v1/files/raw%2Ff.txt"))
                    .send(RawRequest.head("/v1/files/raw/f.txt"))
                    .send(RawRequest.get("/v1/files/raw%2Fmissing"));
            RawResponse a = h.read();
            RawResponse b = h.read(true);
            RawResponse c = h.read();
            assertThat(a.text()).isEqualTo("pipelined");
            assertThat(b.status()).isEqualTo(200);
            assertThat(b.header("Content-Length")).isEqualTo("9");
            assertThat(b.body()).isEmpty();
            assertThat(c.status()).isEqualTo(404);
            assertThat(c.mediaType()).isEqualTo("application/json");
            assertThat(c.text()).contains("\"code\":\"NOT_FOUND\"");
        }
    }

    @Test
    void halfCloseStillGetsTheResponse() throws Exception {
        try (RawHttp h = RawHttp.connect("127.0.0.1", daemon.restPort(), Duration.ofSeconds(10))) {
            h.send(RawRequest.get("/v1/health").closing());
            h.shutdownOutput();
            RawResponse r = h.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).contains("\"status\":\"ok\"");
        }
    }

    @Test
    void chunkedUploadFileUploadAndBadFraming(@TempDir Path tmp) throws Exception {
        try (RawHttp h = RawHttp.connect("127.0.0.1", daemon.restPort(), Duration.ofSeconds(10))) {
            h.send(RawRequest.of("PUT", "/v1/files/raw/chunked.txt")
                    .header("Transfer-Encoding", "chunked")
                    .body("3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII))
                    .withoutContentLength());
            assertThat(h.read().status()).isEqualTo(204);
        }
        assertThat(daemon.rootDir().resolve("raw/chunked.txt")).hasContent("abcde");

        Path f = Files.write(tmp.resolve("f.bin"), new byte[3 << 20]);
        try (RawHttp h = RawHttp.connect("127.0.0.1", daemon.restPort(), Duration.ofSeconds(30))) {
            h.send("PUT /v1/files/raw/sendfile.bin HTTP/1.1\r\nHost: x\r\nContent-Length: " + (3 << 20) + "\r\n\r\n");
            h.sendFile(f);
            assertThat(h.read().status()).isEqualTo(204);
        }
        assertThat(Files.size(daemon.rootDir().resolve("raw/sendfile.bin"))).isEqualTo(3 << 20);

        RawResponse bad = RawHttp.exchange(
                "127.0.0.1",
                daemon.restPort(),
                RawRequest.put("/v1/files/raw/bad.txt", "x".getBytes(StandardCharsets.US_ASCII))
                        .header("Content-Length", "abc"),
                Duration.ofSeconds(10));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(daemon.rootDir().resolve("raw/bad.txt")).doesNotExist();
    }

    @Test
    void exchangeReadsAnEarlyAnswerWhileTheBodyIsStillBeingSent() throws Exception {
        // 401 comes back before the body: the token is checked first.
        try (RunningDaemon secured = TestDaemons.start("raw-http-auth", s -> s.withAuthToken("t"));
                RawHttp h = RawHttp.connect("127.0.0.1", secured.restPort(), Duration.ofSeconds(10))) {
            RawResponse r = h.exchange(
                    RawRequest.of("PUT", "/v1/files/x").header("Content-Length", "100000000"),
                    new ByteArrayInputStream(new byte[1 << 20]));
            assertThat(r.status()).isEqualTo(401);
            assertThat(r.header("WWW-Authenticate")).isEqualTo("Bearer");
            assertThat(h.closedByPeer()).isTrue();
        }
    }
}
