package io.sandboxd.testkit.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Request bytes and response parsing against a scripted one-connection server (exact bytes both ways). */
class RawHttpTest {
    /** A one-connection server that records the request bytes and answers with {@code response}, then closes. */
    private static final class Scripted implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        final CompletableFuture<byte[]> received = new CompletableFuture<>();

        Scripted(String response, int requestBytes) throws IOException {
            Thread t = new Thread(() -> {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    received.complete(in.readNBytes(requestBytes));
                    s.getOutputStream().write(response.getBytes(StandardCharsets.ISO_8859_1));
                    s.getOutputStream().flush();
                    s.shutdownOutput();
                    in.readAllBytes();
                } catch (IOException e) {
                    received.completeExceptionally(e);
                }
            });
            t.setDaemon(true);
            t.start();
        }

        RawHttp connect() throws IOException {
            return RawHttp.connect("127.0.0.1", server.getLocalPort(), Duration.ofSeconds(10));
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    @Test
    void sendsTheRequestByteForByte() throws Exception {
        RawRequest req = RawRequest.put("/v1/files/../a%2Fb?x", "body".getBytes(StandardCharsets.UTF_8))
                .header("X-Dup", "1")
                .header("x-dup", "2")
                .header("X-None", null)
                .bearer("tok");
        String expected = "PUT /v1/files/../a%2Fb?x HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nX-Dup: 1\r\nx-dup: 2\r\n"
                + "Authorization: Bearer tok\r\nContent-Length: 4\r\n\r\nbody";
        int length = expected.length() - "PORT".length() + 5;
        try (Scripted exact = new Scripted("HTTP/1.1 204 No Content\r\n\r\n", length)) {
            String want = expected.replace("PORT", Integer.toString(exact.server.getLocalPort()));
            assertThat(want).hasSize(length);
            try (RawHttp h = exact.connect()) {
                h.send(req);
                assertThat(h.read().status()).isEqualTo(204);
            }
            assertThat(new String(exact.received.get(10, TimeUnit.SECONDS), StandardCharsets.ISO_8859_1))
                    .isEqualTo(want);
        }
        assertThat(new String(
                        RawRequest.get("/x")
                                .withoutContentLength()
                                .body(new byte[] {'z'})
                                .toBytes("h:1"),
                        StandardCharsets.ISO_8859_1))
                .isEqualTo("GET /x HTTP/1.1\r\nHost: h:1\r\n\r\nz");
        assertThat(new String(
                        RawRequest.get("/x").header("Host", "custom").toBytes("h:1"), StandardCharsets.ISO_8859_1))
                .isEqualTo("GET /x HTTP/1.1\r\nHost: custom\r\n\r\n");
    }

    @Test
    void parsesAChunkedBodyWithTrailersAndSkipsInterimResponses() throws Exception {
        String resp =
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\nX-A: 2\r\n\r\n"
                        + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n";
        try (Scripted s = new Scripted(resp, 0);
                RawHttp h = s.connect()) {
            RawResponse r = h.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.statusLine()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(r.text()).isEqualTo("hello world");
            assertThat(r.bodyLength()).isEqualTo(11);
            assertThat(r.headers())
                    .filteredOn(e -> e.getKey().equalsIgnoreCase("x-a"))
                    .extracting(e -> e.getValue())
                    .containsExactly("1", "2");
            assertThat(r.trailers())
                    .extracting(e -> e.getKey() + "=" + e.getValue())
                    .containsExactly("X-Trailer=t");
        }
    }

    @Test
    void readsABodyUntilCloseAndStreamsItToASink() throws Exception {
        try (Scripted s = new Scripted(
                        "HTTP/1.0 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nuntil the end", 0);
                RawHttp h = s.connect()) {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            RawResponse r = h.read(false, sink);
            assertThat(sink.toString(StandardCharsets.UTF_8)).isEqualTo("until the end");
            assertThat(r.body()).isEmpty();
            assertThat(r.bodyLength()).isEqualTo(13);
            assertThat(r.mediaType()).isEqualTo("text/plain");
        }
    }

    @Test
    void aShortBodyIsAnEofAndNoResponseIsClosedWithoutResponse() throws Exception {
        try (Scripted s = new Scripted("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 0);
                RawHttp h = s.connect()) {
            assertThatThrownBy(h::read).isInstanceOf(EOFException.class).hasMessageContaining("3 of 10");
        }
        try (Scripted s = new Scripted("", 0);
                RawHttp h = s.connect()) {
            assertThatThrownBy(h::read).isInstanceOf(RawHttp.ClosedWithoutResponse.class);
        }
        try (Scripted s = new Scripted("SSH-2.0-OpenSSH\r\n", 0);
                RawHttp h = s.connect()) {
            assertThatThrownBy(h::read).isInstanceOf(IOException.class).hasMessageContaining("not an HTTP status line");
        }
        try (Scripted s = new Scripted("HTTP/1.1 204 No Content\r\n\r\nstray", 0);
                RawHttp h = s.connect()) {
            assertThat(h.read().body()).isEmpty();
            assertThat(new String(h.readAvailable(Duration.ofSeconds(2)), StandardCharsets.US_ASCII))
                    .isEqualTo("stray");
        }
    }

    @Test
    void aSilentServerIsNotClosedByPeerAndResetSendsRst() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                RawHttp h = RawHttp.connect("127.0.0.1", silent.getLocalPort(), Duration.ofMillis(300))) {
            try (Socket accepted = silent.accept()) {
                assertThat(h.closedByPeer()).isFalse();
                h.reset();
                assertThatThrownBy(() -> accepted.getInputStream().read())
                        .isInstanceOf(java.net.SocketException.class)
                        .hasMessageContaining("reset");
            }
        }
    }

    @Test
    void excerptEscapesWhatIsNotPrintable() {
        assertThat(RawHttp.excerpt("a\"b\\\n\u0001".getBytes(StandardCharsets.ISO_8859_1), 10))
                .isEqualTo("\"a\\\"b\\\\\\n\\x01\"");
        assertThat(RawHttp.excerpt(new byte[20], 2)).isEqualTo("\"\\x00\\x00\"... (20 bytes)");
    }
}
