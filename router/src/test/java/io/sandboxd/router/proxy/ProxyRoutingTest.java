package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.router.authz.AllowAllAuthorizer;
import io.sandboxd.router.resolve.PodCache;
import io.sandboxd.router.resolve.ResolvedTarget;
import io.sandboxd.router.testing.HttpBackend;
import io.sandboxd.router.testing.RouterFixture;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Routing, validation, header rules and error mapping against a real loopback backend. */
class ProxyRoutingTest {
    static HttpBackend backend;
    static RouterFixture router;

    @BeforeAll
    static void start() throws Exception {
        backend = new HttpBackend();
        router = new RouterFixture(
                RouterFixture.config()
                        .withAllowLoopbackPodIp(true)
                        .withPathRoutingPrefix("/router")
                        .withAddressPolicy(RouterFixture.loopbackAllowed()),
                PodCache.DISABLED,
                new AllowAllAuthorizer(),
                List.of("sb1.team-a.svc." + RouterFixture.DOMAIN, "sb2.default.svc." + RouterFixture.DOMAIN));
    }

    @AfterAll
    static void stop() {
        router.close();
        backend.close();
    }

    private HttpResponse<String> send(HttpRequest r) throws Exception {
        return router.http.send(r, BodyHandlers.ofString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
    void everyMethodRoundTripsWithPathAndQueryKept(String method) throws Exception {
        HttpResponse<String> r = send(router.toPodIp(backend.port(), "/a/b%20c?x=1&y=%2F")
                .method(method, BodyPublishers.ofString("payload"))
                .build());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(method + " /a/b%20c?x=1&y=%2F\n");
        HttpBackend.Seen s = backend.last();
        assertThat(s.header("host")).isEqualTo("127.0.0.1:" + backend.port());
        assertThat(s.header("x-forwarded-for")).isEqualTo("127.0.0.1");
        assertThat(s.header("x-forwarded-host")).isEqualTo("127.0.0.1:" + router.port());
        assertThat(s.header("x-forwarded-proto")).isEqualTo("http");
    }

    @Test
    void headReturnsHeadersOnly() throws Exception {
        HttpResponse<String> r = send(router.toPodIp(backend.port(), "/h")
                .method("HEAD", BodyPublishers.noBody())
                .build());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-length")).hasValue("8"); // "HEAD /h\n"
        assertThat(r.body()).isEmpty();
    }

    @Test
    void authorizationNeverReachesTheBackendButOriginDoesOnOrdinaryRequests() throws Exception {
        HttpResponse<String> r = send(router.toPodIp(backend.port(), "/creds")
                .header("Authorization", "Bearer secret-token")
                .header("Origin", "https://app.example")
                .header("X-Forwarded-For", "6.6.6.6")
                .build());
        assertThat(r.statusCode()).isEqualTo(200);
        HttpBackend.Seen s = backend.last();
        assertThat(s.rawTarget()).isEqualTo("/creds");
        assertThat(s.headers()).doesNotContainKey("authorization");
        assertThat(s.header("origin")).isEqualTo("https://app.example");
        assertThat(s.header("x-forwarded-for")).isEqualTo("127.0.0.1"); // spoofed value replaced
    }

    @Test
    void keepAliveReusesOneBackendConnection() throws Exception {
        int before = backend.seen.size();
        for (int i = 0; i < 5; i++) {
            assertThat(send(router.toPodIp(backend.port(), "/reuse-" + i).build())
                            .statusCode())
                    .isEqualTo(200);
        }
        List<HttpBackend.Seen> mine = backend.seen.subList(before, backend.seen.size());
        assertThat(mine).hasSize(5);
        assertThat(mine.stream().map(HttpBackend.Seen::clientPort).distinct()).hasSize(1);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "|default|8888||X-Sandbox-ID header is required.",
                "Bad_ID|default|8888||Invalid sandbox ID format.",
                "-sb|default|8888||Invalid sandbox ID format.",
                "sb|Team|8888||Invalid namespace format.",
                "sb|default|0||Invalid port format.",
                "sb|default|65536||Invalid port format.",
                "sb|default|80a||Invalid port format.",
                // Restricted addresses and their other spellings (octal, hex, brackets, zone ids, names, ...)
                // are refused in RestrictedTargetsInNetnsTest, where a check that wrongly passed reaches nothing.
            })
    void invalidRoutingHeadersGetJson400AndNeverReachABackend(
            String id, String ns, String port, String podIp, String detail) throws Exception {
        int before = backend.seen.size();
        HttpRequest.Builder b = HttpRequest.newBuilder(router.uri("/x")).timeout(Duration.ofSeconds(30));
        if (id != null) {
            b.header("X-Sandbox-ID", id);
        }
        b.header("X-Sandbox-Namespace", ns).header("X-Sandbox-Port", port);
        if (podIp != null) {
            b.header("X-Sandbox-Pod-IP", podIp);
        }
        HttpResponse<String> r = send(b.build());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(r.body()).isEqualTo("{\"detail\":\"" + detail + "\"}");
        assertThat(backend.seen.size()).isEqualTo(before);
        assertThat(router.dnsLookups).doesNotContain("sb.default.svc." + RouterFixture.DOMAIN);
    }

    @Test
    void loopbackPodIpIsRejectedUnlessAllowed() throws Exception {
        try (RouterFixture strict = new RouterFixture(RouterFixture.config())) {
            for (String ip : List.of("127.0.0.1", "::1", "::ffff:127.0.0.1")) {
                HttpResponse<String> r = strict.http.send(
                        strict.toPodIp(backend.port(), "/")
                                .setHeader("X-Sandbox-Pod-IP", ip)
                                .build(),
                        BodyHandlers.ofString());
                assertThat(r.statusCode()).as(ip).isEqualTo(400);
                assertThat(r.body()).contains("is loopback (127.0.0.0/8, ::1/128).");
            }
        }
    }

    /** Two values of one routing header would be read differently by different hops: refused. */
    @ParameterizedTest
    @ValueSource(
            strings = {"X-Sandbox-ID", "X-Sandbox-Namespace", "X-Sandbox-Port", "X-Sandbox-Pod-IP", "X-Sandbox-UID"})
    void repeatedRoutingHeadersAre400(String name) throws Exception {
        int before = backend.seen.size();
        HttpResponse<String> r = send(router.toPodIp(backend.port(), "/twice")
                .header("X-Sandbox-Namespace", "default")
                .header("X-Sandbox-UID", "u")
                .header(name, name.equals("X-Sandbox-Port") ? Integer.toString(backend.port()) : "default")
                .build());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"detail\":\"" + name + " must be given at most once.\"}");
        assertThat(backend.seen.size()).isEqualTo(before);
    }

    @Test
    void dnsFallbackResolvesServiceNameAndSendsItAsHost() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(router.uri("/via-dns?q=1"))
                .header("X-Sandbox-ID", "sb1")
                .header("X-Sandbox-Namespace", "team-a")
                .header("X-Sandbox-Port", Integer.toString(backend.port()))
                .build());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(router.dnsLookups).contains("sb1.team-a.svc." + RouterFixture.DOMAIN);
        assertThat(backend.last().header("host"))
                .isEqualTo("sb1.team-a.svc." + RouterFixture.DOMAIN + ":" + backend.port());
        assertThat(backend.last().rawTarget()).isEqualTo("/via-dns?q=1");
        assertThat(router.metrics.resolvedCount(ResolvedTarget.Source.DNS)).isGreaterThanOrEqualTo(1);
    }

    @Test
    void unresolvableSandboxIs502() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(router.uri("/"))
                .header("X-Sandbox-ID", "nosuch")
                .build());
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body())
                .isEqualTo("{\"detail\":\"Could not connect to the backend sandbox: nosuch"
                        + " (no Service default/nosuch owned by a Sandbox)\"}");
        assertThat(router.dnsLookups).doesNotContain("nosuch.default.svc." + RouterFixture.DOMAIN);
    }

    @Test
    void refusedConnectionIs502AfterRetries() throws Exception {
        int dead;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            dead = s.getLocalPort();
        }
        try (RouterFixture retrying = new RouterFixture(RouterFixture.config()
                .withAllowLoopbackPodIp(true)
                .withRetries(2, Duration.ofMillis(50), Duration.ofMillis(100)))) {
            long t0 = System.nanoTime();
            HttpResponse<String> r =
                    retrying.http.send(retrying.toPodIp(dead, "/").build(), BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(502);
            assertThat(r.body()).contains("Could not connect to the backend sandbox: sb");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
        }
    }

    @Test
    void retriesUntilTheBackendComesUp() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (RouterFixture retrying = new RouterFixture(RouterFixture.config()
                .withAllowLoopbackPodIp(true)
                .withRetries(30, Duration.ofMillis(100), Duration.ofMillis(100)))) {
            var pending =
                    retrying.http.sendAsync(retrying.toPodIp(port, "/late").build(), BodyHandlers.ofString());
            Thread.sleep(300);
            com.sun.net.httpserver.HttpServer late =
                    com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", port), 8);
            late.createContext("/", x -> {
                x.sendResponseHeaders(200, 4);
                x.getResponseBody().write("late".getBytes());
                x.close();
            });
            late.start();
            try {
                HttpResponse<String> r = pending.get(90, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("late");
            } finally {
                late.stop(0);
            }
        }
    }

    @Test
    void proxyTimeoutBoundsOrdinaryRequestsWith504() throws Exception {
        try (RouterFixture quick = new RouterFixture(RouterFixture.config()
                .withAllowLoopbackPodIp(true)
                .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30)))) {
            HttpResponse<String> r = quick.http.send(
                    quick.toPodIp(backend.port(), "/slow?ms=4000").build(), BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(504);
            assertThat(r.body()).contains("exceeded the proxy timeout of 1s");
        }
    }

    @Test
    void pathRoutingForwardsTheRestByteForByte() throws Exception {
        String target = "/router/team-a/sb1/" + backend.port() + "/files/a%2Fb/%7Ec?path=x%2Fy&z";
        HttpResponse<String> r = send(HttpRequest.newBuilder(router.uri(target)).build());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(backend.last().rawTarget()).isEqualTo("/files/a%2Fb/%7Ec?path=x%2Fy&z");
        assertThat(backend.last().header("host")).startsWith("sb1.team-a.svc." + RouterFixture.DOMAIN + ":");
    }

    @Test
    void pathRoutingWithoutRestGoesToRoot() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(router.uri("/router/default/sb2/" + backend.port()))
                .build());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(backend.last().rawTarget()).isEqualTo("/");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "/router/default/sb2|Path-routed request must have the form /router/<namespace>/<id>/<port>/...",
                "/router/|Path-routed request must have the form /router/<namespace>/<id>/<port>/...",
                "/router/default//80/|Path-routed request must have the form /router/<namespace>/<id>/<port>/...",
                "/router/%zz/sb2/80/|Invalid percent-encoding in path.",
                "/router/default/sb2/%2/|Invalid percent-encoding in path.",
                "/router/Default/sb2/80/|Invalid namespace format.",
                "/router/default/s%2Fb/80/|Invalid sandbox ID format.",
                "/router/default/sb2/99999/|Invalid port format.",
            })
    void malformedPathRoutesAre400(String target, String detail) throws Exception {
        RawResponse r = RawHttp.exchange(
                "127.0.0.1", router.port(), RawRequest.get(target).closing(), Duration.ofSeconds(30));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.text()).isEqualTo("{\"detail\":\"" + detail + "\"}");
    }

    @Test
    void percentEncodedRoutingSegmentsAreDecodedBeforeValidation() throws Exception {
        HttpResponse<String> r =
                send(HttpRequest.newBuilder(router.uri("/router/t%65am-a/sb1/" + backend.port() + "/ok"))
                        .build());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(backend.last().rawTarget()).isEqualTo("/ok");
    }

    @Test
    void pathsOutsideThePrefixFallThroughToHeaderRouting() throws Exception {
        HttpResponse<String> r =
                send(router.toPodIp(backend.port(), "/routerx/default/sb/1/").build());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(backend.last().rawTarget()).isEqualTo("/routerx/default/sb/1/");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        String head = "X-Sandbox-ID: sb\r\nX-Sandbox-Pod-IP: 127.0.0.1\r\nX-Sandbox-Port: " + backend.port() + "\r\n";
        String two = "GET /p1 HTTP/1.1\r\nHost: r\r\n" + head + "\r\n"
                + "GET /p2 HTTP/1.1\r\nHost: r\r\nConnection: close\r\n" + head + "\r\n";
        String all = rawExchange(two, null, null);
        assertThat(all).containsSubsequence("GET /p1\n", "GET /p2\n");
    }

    /** An h2c upgrade the router cannot perform (no HTTP2-Settings) is an ordinary request, on a connection that stays usable. */
    @Test
    void anIncompleteH2cUpgradeIsForwardedAsAnOrdinaryRequest() throws Exception {
        String head = "X-Sandbox-ID: sb\r\nX-Sandbox-Pod-IP: 127.0.0.1\r\nX-Sandbox-Port: " + backend.port() + "\r\n";
        String two = "POST /h2c-1 HTTP/1.1\r\nHost: r\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nContent-Length: 3\r\n"
                + head + "\r\nabc"
                + "GET /h2c-2 HTTP/1.1\r\nHost: r\r\nConnection: close\r\n" + head + "\r\n";
        String all = rawExchange(two, null, null);
        assertThat(all).containsSubsequence("HTTP/1.1 200", "POST /h2c-1\n", "HTTP/1.1 200", "GET /h2c-2\n");
    }

    @Test
    void expectContinueIsRelayed() throws Exception {
        String req = "POST /upload HTTP/1.1\r\nHost: r\r\nX-Sandbox-ID: sb\r\nX-Sandbox-Pod-IP: 127.0.0.1\r\n"
                + "X-Sandbox-Port: " + backend.port() + "\r\nContent-Length: 5\r\nExpect: 100-continue\r\n"
                + "Connection: close\r\n\r\n";
        String all = rawExchange(req, "HTTP/1.1 100", "hello");
        assertThat(all)
                .startsWith("HTTP/1.1 100 Continue")
                .contains("HTTP/1.1 200")
                .contains("5 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    }

    /** Sends {@code first}; if {@code waitFor} is set, waits to read it and then sends {@code then}; reads to EOF. */
    private String rawExchange(String first, String waitFor, String then) throws Exception {
        try (java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), router.port())) {
            s.setSoTimeout(60_000);
            var out = s.getOutputStream();
            var in = s.getInputStream();
            out.write(first.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            out.flush();
            StringBuilder got = new StringBuilder();
            if (waitFor != null) {
                while (got.indexOf(waitFor) < 0 || got.indexOf("\r\n\r\n", got.indexOf(waitFor)) < 0) {
                    int c = in.read();
                    assertThat(c).as("EOF before " + waitFor + ": " + got).isNotNegative();
                    got.append((char) c);
                }
                out.write(then.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                out.flush();
            }
            got.append(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1));
            return got.toString();
        }
    }

    /** A one-shot raw backend: reads the request head, writes {@code reply}, closes. */
    private static int rawBackend(String reply) throws Exception {
        java.net.ServerSocket ss = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        Thread t = new Thread(
                () -> {
                    try (ss;
                            java.net.Socket s = ss.accept()) {
                        var in = new java.io.BufferedReader(new java.io.InputStreamReader(
                                s.getInputStream(), java.nio.charset.StandardCharsets.ISO_8859_1));
                        String line;
                        while ((line = in.readLine()) != null && !line.isEmpty()) {
                            // skip the request head
                        }
                        s.getOutputStream().write(reply.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                        s.getOutputStream().flush();
                    } catch (java.io.IOException ignored) {
                        // the test sees the outcome through the router
                    }
                },
                "raw-backend");
        t.setDaemon(true);
        t.start();
        return ss.getLocalPort();
    }

    @Test
    void backendDyingMidBodyTruncatesTheClientResponse() throws Exception {
        int port = rawBackend("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly-ten!!");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> send(router.toPodIp(port, "/cut").build()))
                .isInstanceOf(java.io.IOException.class);
    }

    @Test
    void garbageFromTheBackendIs502() throws Exception {
        int port = rawBackend("SSH-2.0-OpenSSH_9.6\r\n\r\n");
        HttpResponse<String> r = send(router.toPodIp(port, "/garbage").build());
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).startsWith("{\"detail\":\"");
    }

    @Test
    void closeDelimitedResponsesAreRelayedAndTheConnectionClosed() throws Exception {
        int port = rawBackend("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nuntil-eof");
        HttpResponse<String> r = send(router.toPodIp(port, "/eof").build());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("until-eof");
    }

    @Test
    void healthzAndReadyzOnTheProxyPort() throws Exception {
        assertThat(send(HttpRequest.newBuilder(router.uri("/healthz")).build()).body())
                .isEqualTo("{\"status\":\"ok\"}");
        assertThat(send(HttpRequest.newBuilder(router.uri("/readyz")).build()).statusCode())
                .isEqualTo(200);
        // With a routing header the same path is proxied, not answered locally.
        send(router.toPodIp(backend.port(), "/healthz").build());
        assertThat(backend.last().rawTarget()).isEqualTo("/healthz");
    }

    @Test
    void metricsCountRequestsByStatusClass() throws Exception {
        send(router.toPodIp(backend.port(), "/m").build());
        String scrape = router.registry.scrape();
        assertThat(scrape).contains("sandbox_router_request_duration_seconds_count{code=\"2xx\"}");
        assertThat(scrape).contains("sandbox_router_resolutions_total{source=\"pod_ip\"}");
    }
}
