package io.sandboxd.conformance;

import io.sandboxd.conformance.client.HttpResult;
import io.sandboxd.conformance.client.RawHttpClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The suite's HTTP client must put request targets on the wire byte for byte and read responses exactly. */
class RawHttpClientTest {

    /** Accepts one connection, records the request line, answers {@code response}. */
    static CompletableFuture<String> serveOnce(ServerSocket ss, String response) {
        return CompletableFuture.supplyAsync(() -> {
            try (Socket s = ss.accept()) {
                BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                String requestLine = r.readLine();
                for (String l = r.readLine(); l != null && !l.isEmpty(); l = r.readLine()) {
                    // headers
                }
                OutputStream o = s.getOutputStream();
                o.write(response.getBytes(StandardCharsets.ISO_8859_1));
                o.flush();
                return requestLine;
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/files/a%2Fb", "/v1/files/%2E%2E/x", "/v1/files/../x", "/v1/files/./a//b", "/v1/files/a%00b",
            "/v1/files/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd"})
    void sendsTheTargetUnchanged(String target) throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> line = serveOnce(ss, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
            RawHttpClient c = new RawHttpClient(URI.create("http://127.0.0.1:" + ss.getLocalPort()), null, 5000);
            HttpResult r = c.get(target);
            assertThat(line.get(5, TimeUnit.SECONDS)).isEqualTo("GET " + target + " HTTP/1.1");
            assertThat(r.status()).isEqualTo(204);
        }
    }

    @Test
    void decodesChunkedBodiesAndReportsBytesAfterHead() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            serveOnce(ss, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n3\r\n\":1\r\n1\r\n}\r\n0\r\n\r\n");
            RawHttpClient c = new RawHttpClient(URI.create("http://127.0.0.1:" + ss.getLocalPort()), null, 5000);
            HttpResult r = c.get("/x");
            assertThat(r.bodyText()).isEqualTo("{\"a\":1}");
            assertThat(r.mediaType()).isEqualTo("application/json");
        }
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            serveOnce(ss, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
            RawHttpClient c = new RawHttpClient(URI.create("http://127.0.0.1:" + ss.getLocalPort()), null, 5000);
            HttpResult r = c.head("/x");
            assertThat(r.header("content-length")).isEqualTo("5");
            assertThat(new String(r.extraBytes(), StandardCharsets.US_ASCII)).isEqualTo("hello");
        }
    }

    @Test
    void sendsTheBearerToken() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> headers = CompletableFuture.supplyAsync(() -> {
                try (Socket s = ss.accept()) {
                    BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                    StringBuilder sb = new StringBuilder();
                    for (String l = r.readLine(); l != null && !l.isEmpty(); l = r.readLine()) {
                        sb.append(l).append('\n');
                    }
                    s.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    return sb.toString();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            new RawHttpClient(URI.create("http://127.0.0.1:" + ss.getLocalPort()), "s3cret", 5000).get("/v1/metadata");
            assertThat(headers.get(5, TimeUnit.SECONDS)).contains("Authorization: Bearer s3cret\n");
        }
    }
}
