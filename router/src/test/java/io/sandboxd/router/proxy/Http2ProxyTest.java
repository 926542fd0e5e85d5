package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.sandboxd.router.authz.AllowAllAuthorizer;
import io.sandboxd.router.resolve.PodCache;
import io.sandboxd.router.testing.H2EchoBackend;
import io.sandboxd.router.testing.RouterFixture;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 that is not gRPC: the JDK client reaches the router by {@code Upgrade: h2c} (its way on a
 * plain-text URL), the router forwards over h2c with prior knowledge, routes by headers or by path,
 * strips the caller's credentials, and answers its own refusals as JSON.
 */
class Http2ProxyTest {
    static H2EchoBackend backend;
    static RouterFixture router;
    static final HttpClient h2 =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();

    @BeforeAll
    static void start() throws Exception {
        backend = new H2EchoBackend();
        router = new RouterFixture(
                RouterFixture.config()
                        .withAllowLoopbackPodIp(true)
                        .withPathRoutingPrefix("/router")
                        .withAddressPolicy(RouterFixture.loopbackAllowed()),
                PodCache.DISABLED,
                new AllowAllAuthorizer(),
                List.of("h2sb.team-a.svc." + RouterFixture.DOMAIN));
    }

    @AfterAll
    static void stop() {
        router.close();
        backend.close();
    }

    private HttpRequest.Builder toPodIp(String path) {
        return HttpRequest.newBuilder(router.uri(path))
                .timeout(Duration.ofSeconds(30))
                .header("X-Sandbox-ID", "h2sb")
                .header("X-Sandbox-Pod-IP", "127.0.0.1")
                .header("X-Sandbox-Port", Integer.toString(backend.port()));
    }

    @Test
    void h2cUpgradeThenStreamsOverTheSameConnection() throws Exception {
        HttpResponse<String> first = h2.send(
                toPodIp("/first?x=1").header("Authorization", "Bearer secret").build(), BodyHandlers.ofString());
        assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("GET /first?x=1 0");
        assertThat(first.headers().firstValue("x-echo")).hasValue("yes");
        Http2Headers seen = backend.requests.get(backend.requests.size() - 1);
        assertThat(seen.get("authorization")).isNull();
        assertThat(seen.authority().toString()).isEqualTo("127.0.0.1:" + backend.port());
        assertThat(seen.get("x-forwarded-for").toString()).isEqualTo("127.0.0.1");

        // The connection is HTTP/2 now: a 3 MiB body in both the request and its stream's flow control.
        byte[] body = new byte[3 << 20];
        HttpResponse<String> second = h2.send(
                toPodIp("/second").POST(BodyPublishers.ofByteArray(body)).build(), BodyHandlers.ofString());
        assertThat(second.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(second.body()).isEqualTo("POST /second " + body.length);
    }

    @Test
    void pathRoutingAppliesToHttp2() throws Exception {
        HttpResponse<String> r = h2.send(
                HttpRequest.newBuilder(router.uri("/router/team-a/h2sb/" + backend.port() + "/files/a%2Fb?q=1"))
                        .build(),
                BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("GET /files/a%2Fb?q=1 0");
        assertThat(backend.requests.get(backend.requests.size() - 1).authority().toString())
                .isEqualTo("h2sb.team-a.svc." + RouterFixture.DOMAIN + ":" + backend.port());
    }

    @Test
    void refusalsAreJsonForHttp2CallersThatAreNotGrpc() throws Exception {
        int before = backend.requests.size();
        HttpResponse<String> r = h2.send(
                HttpRequest.newBuilder(router.uri("/x"))
                        .header("X-Sandbox-ID", "Bad_ID")
                        .build(),
                BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(r.body()).isEqualTo("{\"detail\":\"Invalid sandbox ID format.\"}");
        assertThat(backend.requests).hasSize(before);
    }
}
