package io.sandboxd.router.authz;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.utils.ResponseProvider;
import io.sandboxd.router.resolve.PodCache;
import io.sandboxd.router.testing.HttpBackend;
import io.sandboxd.router.testing.RouterFixture;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bearer-token mode against the mock API server answering TokenReview creates. */
@EnableKubernetesMockClient
class TokenReviewAuthorizerTest {
    static final String PATH = "/apis/authentication.k8s.io/v1/tokenreviews";
    static final AccessRequest SB = new AccessRequest("default", "sb", false);

    KubernetesMockServer server;
    KubernetesClient client;

    final AtomicInteger reviews = new AtomicInteger();
    /** The mock's request body can be read only once; keep it per request. */
    final java.util.Map<RecordedRequest, String> bodies =
            java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());

    final List<String> reviewBodies = new java.util.concurrent.CopyOnWriteArrayList<>();

    private String body(RecordedRequest r) {
        return bodies.computeIfAbsent(r, k -> {
            String b = k.getUtf8Body();
            reviewBodies.add(b);
            return b;
        });
    }

    final ExecutorService pool = Executors.newCachedThreadPool();
    HttpBackend backend;

    @BeforeEach
    void expectTokenReviews() throws Exception {
        backend = new HttpBackend();
        server.expect()
                .post()
                .withPath(PATH)
                .andReply(new ResponseProvider<Object>() {
                    private Headers headers = new Headers.Builder().build();

                    @Override
                    public int getStatusCode(RecordedRequest r) {
                        return body(r).contains("\"explode\"") ? 500 : 201;
                    }

                    @Override
                    public Object getBody(RecordedRequest r) {
                        reviews.incrementAndGet();
                        String body = body(r);
                        if (body.contains("\"explode\"")) {
                            return "{\"kind\":\"Status\",\"status\":\"Failure\",\"code\":500}";
                        }
                        boolean ok = body.contains("\"good-token\"");
                        return new TokenReviewBuilder()
                                .withNewStatus()
                                .withAuthenticated(ok)
                                .withNewUser()
                                .withUsername(ok ? "system:serviceaccount:agents:runner" : null)
                                .endUser()
                                .endStatus()
                                .build();
                    }

                    @Override
                    public Headers getHeaders() {
                        return headers;
                    }

                    @Override
                    public void setHeaders(Headers h) {
                        headers = h;
                    }
                })
                .always();
    }

    @AfterEach
    void stop() {
        backend.close();
        pool.shutdownNow();
    }

    /** A router whose sandbox default/sb is found by DNS (on loopback); X-Sandbox-Pod-IP would be loopback too. */
    static RouterFixture router(Authorizer a) throws InterruptedException {
        return new RouterFixture(
                RouterFixture.config().withAllowLoopbackPodIp(true).withAddressPolicy(RouterFixture.loopbackAllowed()),
                PodCache.DISABLED,
                a,
                List.of("sb.default.svc." + RouterFixture.DOMAIN));
    }

    private HttpResponse<String> call(RouterFixture r, String authorization) throws Exception {
        return send(r, backend.port(), authorization, "default", "sb", false);
    }

    static HttpResponse<String> send(
            RouterFixture r, int port, String authorization, String ns, String id, boolean podIp) throws Exception {
        var b = java.net.http.HttpRequest.newBuilder(r.uri("/secure"))
                .timeout(Duration.ofSeconds(60))
                .header("X-Sandbox-ID", id)
                .header("X-Sandbox-Namespace", ns);
        if (podIp) {
            b.header("X-Sandbox-Pod-IP", "127.0.0.1");
        }
        b.header("X-Sandbox-Port", Integer.toString(port));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return r.http.send(b.build(), BodyHandlers.ofString());
    }

    @Test
    void bearerTokensAreCheckedWithTokenReviewAndNeverForwarded() throws Exception {
        TokenReviewAuthorizer authz = new TokenReviewAuthorizer(
                client, List.of("sandbox-router"), Duration.ofSeconds(30), 2048, Duration.ofSeconds(60), pool);
        try (authz;
                RouterFixture r = router(authz)) {
            HttpResponse<String> none = call(r, null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.body()).isEqualTo("{\"detail\":\"A bearer token is required.\"}");
            assertThat(call(r, "Basic dXNlcjpwdw==").statusCode()).isEqualTo(401);
            assertThat(reviews.get()).isZero(); // nothing to review without a bearer token

            HttpResponse<String> bad = call(r, "Bearer bad-token");
            assertThat(bad.statusCode()).isEqualTo(401);
            assertThat(bad.body()).isEqualTo("{\"detail\":\"The bearer token was not accepted.\"}");
            assertThat(backend.seen).isEmpty();

            HttpResponse<String> good = call(r, "Bearer good-token");
            assertThat(good.statusCode()).isEqualTo(200);
            assertThat(backend.last().headers()).doesNotContainKey("authorization");

            // The verdicts are cached: more calls with either token cost no further reviews.
            int after = reviews.get();
            assertThat(after).isEqualTo(2);
            for (int i = 0; i < 5; i++) {
                assertThat(call(r, "bearer good-token").statusCode()).isEqualTo(200);
                assertThat(call(r, "Bearer bad-token").statusCode()).isEqualTo(401);
            }
            assertThat(reviews.get()).isEqualTo(after);

            assertThat(server.getLastRequest().getPath()).isEqualTo(PATH);
            assertThat(reviewBodies).allSatisfy(b -> assertThat(b).contains("\"audiences\":[\"sandbox-router\"]"));
        }
    }

    @Test
    void apiFailuresAre500AndNotCached() throws Exception {
        TokenReviewAuthorizer authz = new TokenReviewAuthorizer(
                client, List.of(), Duration.ofSeconds(30), 2048, Duration.ofSeconds(60), pool);
        try (authz;
                RouterFixture r = router(authz)) {
            HttpResponse<String> res = call(r, "Bearer explode");
            assertThat(res.statusCode()).isEqualTo(500);
            assertThat(res.body()).isEqualTo("{\"detail\":\"Authorization check failed.\"}");
            assertThat(res.body()).doesNotContain("explode");
            int n = reviews.get();
            call(r, "Bearer explode");
            assertThat(reviews.get()).isGreaterThan(n);
            assertThat(authz.cacheSize()).isZero();
        }
    }

    @Test
    void cachedVerdictsExpireAfterTheTtlAndTheCacheIsBounded() throws Exception {
        AtomicLong now = new AtomicLong();
        TokenReviewAuthorizer authz = new TokenReviewAuthorizer(
                client, List.of(), Duration.ofSeconds(30), 2, Duration.ofSeconds(60), pool, now::get);
        try (authz) {
            authz.authorize("Bearer good-token", SB).get(90, TimeUnit.SECONDS);
            authz.authorize("Bearer good-token", SB).get(90, TimeUnit.SECONDS);
            assertThat(reviews.get()).isEqualTo(1);
            now.addAndGet(Duration.ofSeconds(31).toNanos());
            authz.authorize("Bearer good-token", SB).get(90, TimeUnit.SECONDS);
            assertThat(reviews.get()).isEqualTo(2);
            authz.authorize("Bearer a", SB).exceptionally(t -> null).get(90, TimeUnit.SECONDS);
            authz.authorize("Bearer b", SB).exceptionally(t -> null).get(90, TimeUnit.SECONDS);
            assertThat(authz.cacheSize()).isEqualTo(2);
        }
    }

    @Test
    void podIpHeaderIsRefusedInThisMode() throws Exception {
        TokenReviewAuthorizer authz = new TokenReviewAuthorizer(
                client, List.of(), Duration.ofSeconds(30), 2048, Duration.ofSeconds(60), pool);
        try (authz;
                RouterFixture r = router(authz)) {
            HttpResponse<String> res = send(r, backend.port(), "Bearer good-token", "default", "sb", true);
            assertThat(res.statusCode()).isEqualTo(403);
            assertThat(res.body())
                    .isEqualTo("{\"detail\":\"Forbidden: X-Sandbox-Pod-IP needs --authz-mode=scoped and a"
                            + " ClusterRole granting create sandboxes/pod-ip (agents.x-k8s.io) cluster-wide.\"}");
            assertThat(backend.seen).isEmpty();
        }
    }

    @Test
    void bearerParsing() {
        assertThat(TokenAuthenticator.bearerToken("Bearer abc")).isEqualTo("abc");
        assertThat(TokenAuthenticator.bearerToken("bearer  abc ")).isEqualTo("abc");
        assertThat(TokenAuthenticator.bearerToken("Bearer ")).isNull();
        assertThat(TokenAuthenticator.bearerToken("Basic abc")).isNull();
        assertThat(TokenAuthenticator.bearerToken(null)).isNull();
    }
}
