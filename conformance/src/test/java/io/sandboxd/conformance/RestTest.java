package io.sandboxd.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.conformance.suite.Reply;
import io.sandboxd.conformance.suite.Rest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the suite's REST side adds to testkit's raw HTTP helper (which has its own tests): the
 * base URL's path prefix, the token, one connection per request, the request as failure
 * messages name it, and the bytes a server sends after a response that must have no body.
 */
class RestTest {
    /** Accepts one connection, returns the request head it read, answers {@code response}. */
    static CompletableFuture<String> serveOnce(ServerSocket ss, String response) {
        return CompletableFuture.supplyAsync(() -> {
            try (Socket s = ss.accept()) {
                BufferedReader r =
                        new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                StringBuilder head = new StringBuilder();
                for (String l = r.readLine(); l != null && !l.isEmpty(); l = r.readLine()) {
                    head.append(l).append('\n');
                }
                s.getOutputStream().write(response.getBytes(StandardCharsets.ISO_8859_1));
                s.getOutputStream().flush();
                return head.toString();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    @Test
    void sendsTheTargetUnderTheBasePathWithTheTokenOnAClosingConnection() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> head = serveOnce(
                    ss, "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n" + "Content-Length: 2\r\n\r\n{}");
            Rest rest = new Rest(
                    URI.create("http://127.0.0.1:" + ss.getLocalPort() + "/prefix/"), "s3cret", Duration.ofSeconds(5));
            Reply r = rest.get("/v1/files/a%2F..%2Fb", "Range", "bytes=0-1");
            assertThat(head.get(5, TimeUnit.SECONDS))
                    .startsWith("GET /prefix/v1/files/a%2F..%2Fb HTTP/1.1\n")
                    .contains("Connection: close\n", "Range: bytes=0-1\n", "Authorization: Bearer s3cret\n");
            assertThat(r.request()).isEqualTo("GET /v1/files/a%2F..%2Fb");
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.mediaType()).isEqualTo("application/json");
            assertThat(r.bodyText()).isEqualTo("{}");
            assertThat(r.extraBytes()).isEmpty();
        }
    }

    @Test
    void anExplicitOrNoTokenReplacesTheSuitesToken() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 2, InetAddress.getLoopbackAddress())) {
            Rest rest = new Rest(URI.create("http://127.0.0.1:" + ss.getLocalPort()), "s3cret", Duration.ofSeconds(5));
            CompletableFuture<String> none = serveOnce(ss, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
            rest.withToken(null).get("/v1/health");
            assertThat(none.get(5, TimeUnit.SECONDS)).doesNotContain("Authorization");
            CompletableFuture<String> own = serveOnce(ss, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
            rest.get("/v1/metadata", "Authorization", "Basic eDp5");
            assertThat(own.get(5, TimeUnit.SECONDS))
                    .contains("Authorization: Basic eDp5\n")
                    .doesNotContain("Bearer");
        }
    }

    @Test
    void bytesAfterABodilessResponseAreKeptApart() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            serveOnce(ss, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
            Reply r = new Rest(URI.create("http://127.0.0.1:" + ss.getLocalPort()), null, Duration.ofSeconds(5))
                    .head("/x");
            assertThat(r.header("content-length")).isEqualTo("5");
            assertThat(r.body()).isEmpty();
            assertThat(new String(r.extraBytes(), StandardCharsets.US_ASCII)).isEqualTo("hello");
        }
    }
}
