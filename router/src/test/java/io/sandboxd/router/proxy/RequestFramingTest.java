package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.router.testing.RecordingBackend;
import io.sandboxd.router.testing.RouterFixture;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RFC 9112 framing end to end: each malformed request gets a JSON error and the backend receives
 * nothing at all (not even a connection); the accepted normalizations reach it as one clean request.
 */
class RequestFramingTest {
    static RecordingBackend backend;
    static RouterFixture router;
    static String route;

    @BeforeAll
    static void start() throws Exception {
        backend = new RecordingBackend();
        router = new RouterFixture(RouterFixture.config().withAllowLoopbackPodIp(true));
        route = "X-Sandbox-ID: sb\r\nX-Sandbox-Pod-IP: 127.0.0.1\r\nX-Sandbox-Port: " + backend.port() + "\r\n";
    }

    @AfterAll
    static void stop() throws IOException {
        router.close();
        backend.close();
    }

    /** Sends raw bytes, reads one response and checks that the router then closes (every refusal closes). */
    static RawResponse exchange(String request) throws IOException {
        try (RawHttp h = RawHttp.connect("127.0.0.1", router.port(), Duration.ofSeconds(20))) {
            RawResponse response = h.send(request).read();
            assertThat(h.readAvailable(Duration.ofSeconds(20)))
                    .as("bytes after the response")
                    .isEmpty();
            assertThat(h.closedByPeer()).as("router closed the connection").isTrue();
            return response;
        }
    }

    static Stream<Arguments> refused() {
        String big = "a".repeat(RequestFraming.MAX_HEADER_BYTES);
        String longTarget = "/" + "a".repeat(RequestFraming.MAX_REQUEST_LINE);
        return Stream.of(
                a(
                        "NUL in target",
                        "GET /a\0b HTTP/1.1\r\nHost: x\r\n{R}\r\n",
                        400,
                        "Request target contains control byte 0x00 at index 2."),
                a(
                        "SOH in target",
                        "GET /a\u0001b HTTP/1.1\r\nHost: x\r\n{R}\r\n",
                        400,
                        "Request target contains control byte 0x01 at index 2."),
                a(
                        "ESC in query",
                        "GET /a?x=\u001b[2J HTTP/1.1\r\nHost: x\r\n{R}\r\n",
                        400,
                        "Request target contains control byte 0x1b at index 5."),
                a(
                        "DEL in target",
                        "GET /\u007f HTTP/1.1\r\nHost: x\r\n{R}\r\n",
                        400,
                        "Request target contains control byte 0x7f at index 1."),
                a("HTAB in target", "GET /a\tb HTTP/1.1\r\nHost: x\r\n{R}\r\n", 400, "Malformed HTTP request."),
                a("space in target", "GET /a b HTTP/1.1\r\nHost: x\r\n{R}\r\n", 400, "Malformed HTTP request."),
                a(
                        "target neither a path nor an absolute URI",
                        "GET x HTTP/1.1\r\nHost: x\r\n{R}\r\n",
                        400,
                        "Request target 'x' must be a path starting with / or an absolute URI (http://host/path)."),
                a(
                        "authority form without CONNECT",
                        "GET x:80 HTTP/1.1\r\nHost: x\r\n{R}\r\n",
                        400,
                        "Request target 'x:80' must be a path starting with / or an absolute URI (http://host/path)."),
                a(
                        "Content-Length list",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 30\r\n{R}\r\nhello",
                        400,
                        "Malformed HTTP request."),
                a(
                        "Content-Length list of equal values",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n{R}\r\nhello",
                        400,
                        "Malformed HTTP request."),
                a(
                        "two differing Content-Length",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 30\r\n{R}\r\nhello",
                        400,
                        "Malformed HTTP request."),
                a(
                        "two equal Content-Length",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n{R}\r\nhello",
                        400,
                        "Malformed HTTP request."),
                a(
                        "Content-Length not a number",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n{R}\r\nhello",
                        400,
                        "Malformed HTTP request."),
                a(
                        "Content-Length signed",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n{R}\r\nhello",
                        400,
                        "Malformed HTTP request."),
                a(
                        "Content-Length overflow",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n{R}\r\nhello",
                        400,
                        "Malformed HTTP request."),
                a(
                        "Content-Length and Transfer-Encoding",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n{R}\r\n5\r\nhello\r\n0\r\n\r\n",
                        400,
                        "Malformed HTTP request."),
                a(
                        "unknown coding alone",
                        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n{R}\r\nhello",
                        400,
                        "Malformed HTTP request."),
                a(
                        "coding before chunked",
                        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n{R}\r\n5\r\nhello\r\n0\r\n\r\n",
                        501,
                        "Transfer-Encoding 'gzip, chunked' is not supported: only chunked."),
                a(
                        "chunked twice",
                        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n{R}\r\n5\r\nhello\r\n0\r\n\r\n",
                        400,
                        "Malformed HTTP request."),
                a(
                        "Transfer-Encoding in HTTP/1.0",
                        "POST / HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n{R}\r\n5\r\nhello\r\n0\r\n\r\n",
                        400,
                        "Malformed HTTP request."),
                a(
                        "identity coding",
                        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nTransfer-Encoding: identity\r\n{R}\r\n",
                        400,
                        "Malformed HTTP request."),
                a("space before colon", "GET / HTTP/1.1\r\nHost : x\r\n{R}\r\n", 400, "Malformed HTTP request."),
                a(
                        "space in field name",
                        "GET / HTTP/1.1\r\nHost: x\r\nX A: b\r\n{R}\r\n",
                        400,
                        "Malformed HTTP request."),
                a(
                        "bare CR in a value",
                        "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n{R}\r\n",
                        400,
                        "Malformed HTTP request."),
                a(
                        "NUL in a value",
                        "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n{R}\r\n",
                        400,
                        "Malformed HTTP request."),
                a(
                        "bare LF line ends",
                        "GET / HTTP/1.1\nHost: x\n{R}\n".replace("\r\n", "\n"),
                        400,
                        "Malformed HTTP request."),
                a(
                        "no Host in HTTP/1.1",
                        "GET / HTTP/1.1\r\n{R}\r\n",
                        400,
                        "An HTTP/1.1 request needs exactly one Host header, not 0."),
                a(
                        "two Host",
                        "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n{R}\r\n",
                        400,
                        "An HTTP/1.1 request needs exactly one Host header, not 2."),
                a(
                        "two Host in HTTP/1.0",
                        "GET / HTTP/1.0\r\nHost: x\r\nHost: y\r\n{R}\r\n",
                        400,
                        "An HTTP/1.1 request needs exactly one Host header, not 2."),
                a(
                        "HTTP/1.2",
                        "GET / HTTP/1.2\r\nHost: x\r\n{R}\r\n",
                        505,
                        "HTTP version HTTP/1.2 is not supported (HTTP/1.0, HTTP/1.1, HTTP/2 with prior knowledge or h2c)."),
                a(
                        "HTTP/2.0 request line",
                        "GET / HTTP/2.0\r\nHost: x\r\n{R}\r\n",
                        505,
                        "HTTP version HTTP/2.0 is not supported (HTTP/1.0, HTTP/1.1, HTTP/2 with prior knowledge or h2c)."),
                a(
                        "CONNECT",
                        "CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n{R}\r\n",
                        405,
                        "CONNECT is not supported: the router is not a forward proxy."),
                a(
                        "asterisk-form with GET",
                        "GET * HTTP/1.1\r\nHost: x\r\n{R}\r\n",
                        400,
                        "Request target * is allowed only with OPTIONS."),
                a(
                        "request line over the limit",
                        "GET " + longTarget + " HTTP/1.1\r\nHost: x\r\n{R}\r\n",
                        414,
                        "Request line longer than 16384 bytes."),
                a(
                        "h2c upgrade body over the limit",
                        "POST / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n"
                                + "Connection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\nContent-Length: "
                                + (H2Pipeline.MAX_UPGRADE_BODY + 1) + "\r\n{R}\r\n",
                        413,
                        "An h2c upgrade request may carry at most 65536 bytes of body."),
                a(
                        "headers over the limit",
                        "GET / HTTP/1.1\r\nHost: x\r\n{R}X-Big: " + big + "\r\n\r\n",
                        431,
                        "Request headers larger than 65536 bytes."));
    }

    private static Arguments a(String name, String request, int status, String detail) {
        return Arguments.of(name, request, status, detail);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusedWithJsonAndTheBackendReceivesNothing(String name, String request, int status, String detail)
            throws Exception {
        int connections = backend.connections.get();
        RawResponse response = exchange(request.replace("{R}", route));
        assertThat(response.statusLine()).startsWith("HTTP/1.1 " + status + " ");
        assertThat(response.header("content-type")).isEqualTo("application/json");
        assertThat(response.header("connection")).isEqualTo("close");
        assertThat(response.text()).isEqualTo(new String(JsonResponses.detail(detail), StandardCharsets.UTF_8));
        Thread.sleep(50); // a forwarded request would have connected by now
        assertThat(backend.connections.get()).as("backend connections").isEqualTo(connections);
    }

    @Test
    void aMalformedChunkMidBodyNeverReachesTheBackendAsACompleteRequest() throws Exception {
        int before = backend.received.size();
        RawResponse response = exchange("POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n" + route
                + "\r\n5\r\nhello\r\nzz\r\n0\r\n\r\n");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.text()).isEqualTo("{\"detail\":\"Malformed chunked request body.\"}");
        Thread.sleep(200);
        String seen = String.join(
                "",
                backend.received.subList(before, backend.received.size()).stream()
                        .map(b -> b.toString(StandardCharsets.ISO_8859_1))
                        .toList());
        assertThat(seen).doesNotContain("0\r\n\r\n"); // the backend never saw the body end
    }

    /** RFC 9112 §3.2.2: a server accepts the absolute form; the backend gets the origin form. */
    @Test
    void anAbsoluteFormTargetReachesTheBackendInOriginForm() throws Exception {
        int before = backend.received.size();
        RawResponse response =
                exchange("GET http://sb.example/abs?q=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + route + "\r\n");
        assertThat(response.status()).isEqualTo(200);
        assertThat(backend.received.get(before).toString(StandardCharsets.ISO_8859_1))
                .startsWith("GET /abs?q=1 HTTP/1.1\r\n");
    }

    /** RFC 9112 §5.2 allows replacing obs-fold with SP: the backend sees one line, never the fold. */
    @Test
    void obsFoldReachesTheBackendAsOneLine() throws Exception {
        int before = backend.received.size();
        RawResponse response =
                exchange("GET /fold HTTP/1.1\r\nHost: x\r\nX-Fold: a\r\n b\r\nConnection: close\r\n" + route + "\r\n");
        assertThat(response.status()).isEqualTo(200);
        String seen = backend.received.get(before).toString(StandardCharsets.ISO_8859_1);
        assertThat(seen).contains("X-Fold: a b\r\n").doesNotContain("a\r\n b");
    }

    /**
     * Netty skips to the line end after a chunk's data; the backend still receives the router's own,
     * well-formed chunking (never the client's bytes), so no two parsers disagree.
     */
    @Test
    void chunksAreReEncodedForTheBackend() throws Exception {
        int before = backend.received.size();
        RawResponse response =
                exchange("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n" + route
                        + "\r\n5;ext=1\r\nhello\r\n0\r\n\r\n");
        assertThat(response.status()).isEqualTo(200);
        String seen = backend.received.get(before).toString(StandardCharsets.ISO_8859_1);
        assertThat(seen).endsWith("\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
    }
}
