package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.sandboxd.router.testing.H2EchoBackend;
import io.sandboxd.router.testing.H2RawClient;
import io.sandboxd.router.testing.RouterFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed HTTP/2 requests (RFC 9113 §8.1.1, §8.2, §8.3), sent by a client that validates nothing:
 * each is refused before anything reaches the Pod, either by the router (a 400/405 with JSON, or a
 * gRPC status for gRPC callers) or by Netty's HTTP/2 codec (RST_STREAM PROTOCOL_ERROR), and the
 * backend sees no request at all.
 */
class Http2FramingTest {
    static H2EchoBackend backend;
    static RouterFixture router;

    @BeforeAll
    static void start() throws Exception {
        backend = new H2EchoBackend();
        router = new RouterFixture(RouterFixture.config().withAllowLoopbackPodIp(true));
    }

    @AfterAll
    static void stop() {
        router.close();
        backend.close();
    }

    private static Http2Headers routed(Http2Headers h) {
        return h.add("x-sandbox-id", "sb")
                .add("x-sandbox-pod-ip", "127.0.0.1")
                .add("x-sandbox-port", Integer.toString(backend.port()));
    }

    private static H2RawClient.Answer send(Http2Headers h, byte[] body) throws Exception {
        try (H2RawClient c = new H2RawClient(router.port())) {
            return c.exchange(routed(h), body);
        }
    }

    private static Arguments a(String name, String method, String path, UnaryOperator<Http2Headers> more) {
        return Arguments.of(name, H2RawClient.request(method, path), more);
    }

    static Stream<Arguments> refusedByTheRouter() {
        return Stream.of(
                Arguments.of(
                        "HTAB in :path",
                        H2RawClient.request("GET", "/a\tb"),
                        400,
                        "Request target contains control byte 0x09 at index 2."),
                Arguments.of(
                        "space in :path",
                        H2RawClient.request("GET", "/a b"),
                        400,
                        "Request target contains a space at index 2."),
                Arguments.of(
                        "relative :path",
                        H2RawClient.request("GET", "x"),
                        400,
                        "Request target 'x' must be a path starting with /."),
                Arguments.of(
                        "absolute URI in :path",
                        H2RawClient.request("GET", "http://elsewhere/x"),
                        400,
                        "Request target 'http://elsewhere/x' must be a path starting with /."),
                Arguments.of("no :path", H2RawClient.request("GET", null), 400, "Malformed HTTP/2 request: no :path."),
                Arguments.of(
                        "no :method", H2RawClient.request(null, "/x"), 400, "Malformed HTTP/2 request: no :method."),
                Arguments.of(
                        "* with GET",
                        H2RawClient.request("GET", "*"),
                        400,
                        "Request target * is allowed only with OPTIONS."),
                Arguments.of(
                        "CONNECT",
                        H2RawClient.request("CONNECT", null),
                        405,
                        "CONNECT is not supported: the router is not a forward proxy."));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedByTheRouter")
    void refusedByTheRouterWithJsonAndNothingReachesThePod(String name, Http2Headers h, int status, String detail)
            throws Exception {
        int before = backend.requests.size();
        H2RawClient.Answer a = send(h, null);
        assertThat(a.status()).isEqualTo(Integer.toString(status));
        assertThat(a.last("content-type")).isEqualTo("application/json");
        assertThat(a.text()).isEqualTo(new String(JsonResponses.detail(detail), StandardCharsets.UTF_8));
        Thread.sleep(50); // a forwarded request would have arrived by now
        assertThat(backend.requests).hasSize(before);
    }

    @Test
    void aGrpcCallerGetsTheRefusalAsAGrpcStatus() throws Exception {
        int before = backend.requests.size();
        H2RawClient.Answer a = send(
                H2RawClient.request("POST", "/process.v1.ProcessService/Execute\t")
                        .add("content-type", "application/grpc")
                        .add("te", "trailers"),
                null);
        assertThat(a.status()).isEqualTo("200");
        assertThat(a.last("grpc-status")).isEqualTo("3"); // INVALID_ARGUMENT
        assertThat(a.last("grpc-message")).isEqualTo("Request target contains control byte 0x09 at index 34.");
        assertThat(backend.requests).hasSize(before);
    }

    static Stream<Arguments> refusedByTheCodec() {
        return Stream.of(
                a("NUL in :path", "GET", "/a\0b", h -> h),
                a("SOH in :path", "GET", "/a\u0001b", h -> h),
                a("ESC in :path", "GET", "/a\u001b[2J", h -> h),
                a("DEL in :path", "GET", "/a\u007f", h -> h),
                a("empty :path", "GET", "", h -> h),
                a("connection", "GET", "/x", h -> h.add("connection", "keep-alive")),
                a("transfer-encoding", "POST", "/x", h -> h.add("transfer-encoding", "chunked")),
                a("keep-alive", "GET", "/x", h -> h.add("keep-alive", "timeout=5")),
                a("proxy-connection", "GET", "/x", h -> h.add("proxy-connection", "keep-alive")),
                a("upgrade", "GET", "/x", h -> h.add("upgrade", "websocket")),
                a("te other than trailers", "GET", "/x", h -> h.add("te", "gzip")),
                a("upper-case field name", "GET", "/x", h -> h.add("X-Upper", "1")),
                a("space in a field name", "GET", "/x", h -> h.add("x a", "1")),
                a("unknown pseudo-header", "GET", "/x", h -> h.add(":foo", "1")),
                a("NUL in a value", "GET", "/x", h -> h.add("x-a", "a\0b")),
                a("CR LF in a value", "GET", "/x", h -> h.add("x-a", "a\r\nx-injected: 1")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedByTheCodec")
    void refusedByTheCodecWithAResetAndNothingReachesThePod(
            String name, Http2Headers h, UnaryOperator<Http2Headers> more) throws Exception {
        int before = backend.requests.size();
        H2RawClient.Answer a = send(more.apply(h), null);
        assertThat(a.headers()).as("no response, a reset").isEmpty();
        assertThat(a.resetCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
        Thread.sleep(50);
        assertThat(backend.requests).hasSize(before);
    }

    /**
     * A body longer or shorter than its content-length: the codec fails the caller's stream (reset),
     * and the Pod, which already has the request's headers, sees its stream reset, never a clean end.
     */
    @Test
    void aBodyThatDisagreesWithContentLengthNeverEndsCleanlyAtThePod() throws Exception {
        for (String length : new String[] {"5", "50"}) {
            int requests = backend.requests.size();
            int completed = backend.completed.get();
            int resets = backend.resets.get();
            H2RawClient.Answer a;
            try (H2RawClient c = new H2RawClient(router.port())) {
                a = c.exchange(
                        routed(H2RawClient.request("POST", "/up").add("content-length", length)), new byte[10], () -> {
                            long deadline =
                                    System.nanoTime() + Duration.ofSeconds(20).toNanos();
                            while (backend.requests.size() == requests && System.nanoTime() < deadline) {
                                Thread.sleep(10);
                            }
                        });
            }
            assertThat(backend.requests).as("the Pod had the headers").hasSize(requests + 1);
            assertThat(a.headers()).as("no response").isEmpty();
            assertThat(a.resetCode()).as("the caller's stream was reset").isNotNull();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (backend.resets.get() == resets && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(backend.resets.get()).as("the Pod's stream was reset").isEqualTo(resets + 1);
            assertThat(backend.completed.get())
                    .as("requests that ended cleanly")
                    .isEqualTo(completed);
        }
    }

    @Test
    void aWellFormedRequestStillPasses() throws Exception {
        H2RawClient.Answer a = send(H2RawClient.request("POST", "/ok?q=1").add("content-length", "3"), new byte[3]);
        assertThat(a.status()).isEqualTo("200");
        assertThat(a.text()).isEqualTo("POST /ok?q=1 3");
    }
}
