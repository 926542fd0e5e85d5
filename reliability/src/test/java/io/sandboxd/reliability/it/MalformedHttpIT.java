package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ResourceSnapshot;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Malformed HTTP over raw sockets against a daemon with {@code --http-idle-timeout 3s}: bad
 * percent-encoding, oversized request lines and headers, broken framing, and stalled or trickling
 * clients. Each gets a 4xx (never a 5xx) or a bounded close, nothing is written, and the daemon's
 * fds return to baseline afterwards.
 */
class MalformedHttpIT {
    private static RunningDaemon daemon;
    private static Path root;
    private static ResourceSnapshot baseline;

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx256m")
                .withArgs("--http-idle-timeout", "3s")
                .withLogName("MalformedHttpIT")
                .start();
        root = daemon.rootDir();
        assertThat(Http.exchange(daemon, Http.put("/v1/files/existing.txt", "x".getBytes(StandardCharsets.UTF_8)))
                        .status())
                .isEqualTo(204);
        Poll.sleep(2500);
        baseline = daemon.observer().snapshot();
    }

    @AfterAll
    static void stop() {
        if (daemon != null) {
            try {
                Poll.await(
                        Duration.ofSeconds(30),
                        () -> daemon.observer().fds() <= baseline.fds() + 4,
                        () -> "daemon fds after all malformed requests: "
                                + daemon.observer().snapshot().describe() + ", baseline " + baseline.describe());
                assertThat(daemon.observer().alive()).isTrue();
            } finally {
                daemon.killTree();
            }
        }
    }

    private static RawHttp connect(Duration readTimeout) throws java.io.IOException {
        return RawHttp.connect("127.0.0.1", daemon.restPort(), readTimeout);
    }

    private static RawResponse exchange(String request) throws Exception {
        try (RawHttp http = connect(Duration.ofSeconds(30))) {
            http.send(request);
            return http.read();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"%zz", "%", "a%2", "a%00b"})
    void badPercentEncodingIs400WithJsonError(String path) throws Exception {
        TreeSet<String> before = FileTree.of(root);
        for (String method : new String[] {"GET", "PUT", "DELETE"}) {
            RawResponse r = exchange(method + " /v1/files/" + path
                    + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nConnection: close\r\n\r\nz");
            assertThat(r.status())
                    .as("%s /v1/files/%s → %s %s", method, path, r.status(), r.text())
                    .isEqualTo(400);
            assertThat(r.header("content-type"))
                    .as("%s %s content type", method, path)
                    .startsWith("application/json");
            assertThat(r.text()).contains("INVALID_ARGUMENT");
        }
        assertThat(FileTree.of(root)).isEqualTo(before);
    }

    /** Percent-encoded bytes that are not UTF-8 name a file by its bytes (runtime-contract §2.1), never a 5xx. */
    @ParameterizedTest
    @ValueSource(strings = {"a%C3%28b", "%FF%FE", "a%C0%AFb"})
    void bytesThatAreNotUtf8AddressAName(String path) throws Exception {
        TreeSet<String> before = FileTree.of(root);
        String head = " /v1/files/" + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
        RawResponse missing = exchange("GET" + head + "\r\n");
        assertThat(missing.status()).as("GET before PUT: %s", missing.text()).isEqualTo(404);
        assertThat(missing.text()).contains("NOT_FOUND");
        assertThat(exchange("PUT" + head + "Content-Length: 1\r\n\r\nz").status())
                .isEqualTo(204);
        RawResponse read = exchange("GET" + head + "\r\n");
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.text()).isEqualTo("z");
        assertThat(exchange("DELETE" + head + "\r\n").status()).isEqualTo(204);
        assertThat(exchange("GET" + head + "\r\n").status()).isEqualTo(404);
        assertThat(FileTree.of(root)).isEqualTo(before);
    }

    @Test
    void oversizedHeaderIsRejected() throws Exception {
        RawResponse r = exchange("GET /v1/files/existing.txt HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(64 * 1024)
                + "\r\nConnection: close\r\n\r\n");
        assertThat(r.status()).as("64 KiB header").isIn(400, 431);
    }

    @Test
    void tooManyHeadersAreRejected() throws Exception {
        StringBuilder sb = new StringBuilder("GET /v1/files/existing.txt HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 2000; i++) {
            sb.append("X-H").append(i).append(": ").append("v".repeat(40)).append("\r\n");
        }
        RawResponse r = exchange(sb.append("Connection: close\r\n\r\n").toString());
        assertThat(r.status()).as("2000 headers").isIn(400, 431);
    }

    @Test
    void oversizedRequestLineIsRejected() throws Exception {
        RawResponse r =
                exchange("GET /v1/files/" + "d/".repeat(50_000) + "f HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(r.status()).as("100 KB request line").isIn(400, 414, 431);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "Content-Length: abc",
                "Content-Length: -5",
                "Content-Length: 99999999999999999999999",
                "Content-Length: 3\r\nContent-Length: 4",
                "Transfer-Encoding: gzip, chunked, identity"
            })
    void badFramingIsA4xxAndWritesNothing(String header) throws Exception {
        TreeSet<String> before = FileTree.of(root);
        try (RawHttp http = connect(Duration.ofSeconds(30))) {
            http.send(
                    "PUT /v1/files/framing.txt HTTP/1.1\r\nHost: x\r\n" + header + "\r\nConnection: close\r\n\r\nabcd");
            try {
                RawResponse r = http.read();
                assertThat(r.status()).as("PUT with %s → %s", header, r.text()).isBetween(400, 499);
            } catch (RawHttp.ClosedWithoutResponse e) {
                // closing the connection on unparseable framing is also acceptable
            }
        }
        Poll.sleep(200);
        assertThat(FileTree.of(root)).isEqualTo(before);
    }

    @Test
    void invalidChunkIsA4xxAndWritesNothing() throws Exception {
        TreeSet<String> before = FileTree.of(root);
        try (RawHttp http = connect(Duration.ofSeconds(30))) {
            http.send(
                    "PUT /v1/files/chunk.txt HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\nzz\r\nxx\r\n");
            try {
                RawResponse r = http.read();
                assertThat(r.status()).as("bad chunk size → %s", r.text()).isBetween(400, 499);
            } catch (RawHttp.ClosedWithoutResponse e) {
                // acceptable
            }
        }
        Poll.await(
                Duration.ofSeconds(10),
                () -> FileTree.of(root).equals(before),
                () -> "files after a bad chunk: " + FileTree.of(root));
    }

    @Test
    void notHttpAtAllIsRejectedOrClosed() throws Exception {
        byte[] tlsHello = {
            0x16,
            0x03,
            0x01,
            0x00,
            (byte) 0xa5,
            0x01,
            0x00,
            0x00,
            (byte) 0xa1,
            0x03,
            0x03,
            0,
            0,
            0,
            '\r',
            '\n',
            '\r',
            '\n'
        };
        try (RawHttp http = connect(Duration.ofSeconds(20))) {
            http.send(tlsHello);
            try {
                assertThat(http.read().status()).isBetween(400, 499);
            } catch (RawHttp.ClosedWithoutResponse | java.net.SocketTimeoutException e) {
                assertThat(e).isInstanceOf(RawHttp.ClosedWithoutResponse.class);
            } catch (java.io.IOException e) {
                // not an HTTP status line back: acceptable as long as the daemon survives (checked after all)
            }
        }
    }

    @Test
    void unknownMethodIsNotA5xx() throws Exception {
        RawResponse r = exchange("BREW /v1/files/existing.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(r.status()).as("BREW → %s", r.text()).isIn(400, 405, 501);
    }

    @Test
    void stalledBodyIsClosedByTheIdleTimeoutAndLeavesNoFile() throws Exception {
        TreeSet<String> before = FileTree.of(root);
        try (RawHttp http = connect(Duration.ofSeconds(45))) {
            http.send("PUT /v1/files/stalled.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789");
            long t0 = System.nanoTime();
            assertThat(http.closedByPeer())
                    .as("connection with a stalled body closed within 45 s (idle timeout 3 s)")
                    .isTrue();
            System.out.println("stalled body closed after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
        Poll.await(
                Duration.ofSeconds(10),
                () -> FileTree.of(root).equals(before),
                () -> "files after a stalled upload: " + FileTree.of(root));
    }

    @Test
    void stalledHeadersAreClosedByTheIdleTimeout() throws Exception {
        try (RawHttp http = connect(Duration.ofSeconds(45))) {
            http.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n");
            assertThat(http.closedByPeer())
                    .as("connection with unfinished headers closed within 45 s")
                    .isTrue();
        }
    }

    @Test
    void tricklingBodyIsBoundedToo() throws Exception {
        TreeSet<String> before = FileTree.of(root);
        try (RawHttp http = connect(Duration.ofSeconds(1))) {
            http.send("PUT /v1/files/trickle.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
            long t0 = System.nanoTime();
            boolean closed = false;
            // one byte every 500 ms never trips an idle timeout of 3 s; the daemon must bound it another way
            while (!closed && System.nanoTime() - t0 < Duration.ofSeconds(60).toNanos()) {
                try {
                    http.send("a");
                } catch (java.io.IOException e) {
                    closed = true;
                    break;
                }
                closed = peerClosedWithin(http, 500);
            }
            System.out.println(
                    "trickling body: closed=" + closed + " after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            assertThat(closed)
                    .as("a body trickling at 2 B/s is cut off within 60 s")
                    .isTrue();
        }
        Poll.await(
                Duration.ofSeconds(10),
                () -> FileTree.of(root).equals(before),
                () -> "files after a trickled upload: " + FileTree.of(root));
    }

    private static boolean peerClosedWithin(RawHttp http, int ms) throws java.io.IOException {
        http.socket().setSoTimeout(ms);
        return http.closedByPeer();
    }
}
