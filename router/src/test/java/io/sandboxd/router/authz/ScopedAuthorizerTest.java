package io.sandboxd.router.authz;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.utils.ResponseProvider;
import io.sandboxd.router.testing.H2EchoBackend;
import io.sandboxd.router.testing.H2RawClient;
import io.sandboxd.router.testing.HttpBackend;
import io.sandboxd.router.testing.RouterFixture;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Scoped mode against the mock API server: TokenReview names the caller, a SubjectAccessReview per
 * sandbox decides. The mock's RBAC: alice may reach team-a/sb only; ops may reach everything and
 * name Pod IPs; "broken" makes the SubjectAccessReview API fail.
 */
@EnableKubernetesMockClient
class ScopedAuthorizerTest {
    static final String TOKENREVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
    static final String SARS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    static final Map<String, String> USERS =
            Map.of("alice-token", "alice", "ops-token", "ops", "broken-token", "broken");

    KubernetesMockServer server;
    KubernetesClient client;
    final ExecutorService pool = Executors.newCachedThreadPool();
    final List<SubjectAccessReview> asked = new CopyOnWriteArrayList<>();
    final List<String> tokenReviews = new CopyOnWriteArrayList<>();
    HttpBackend backend;

    /** The mock hands each request's body out once; keep it per request. */
    final Map<RecordedRequest, String> bodies = Collections.synchronizedMap(new IdentityHashMap<>());

    private String body(RecordedRequest r) {
        return bodies.computeIfAbsent(r, RecordedRequest::getUtf8Body);
    }

    static boolean rbac(String user, ResourceAttributes a) {
        if ("ops".equals(user)) {
            return true;
        }
        return "alice".equals(user)
                && "proxy".equals(a.getSubresource())
                && "team-a".equals(a.getNamespace())
                && "sb".equals(a.getName());
    }

    @BeforeEach
    void start() throws Exception {
        backend = new HttpBackend();
        server.expect()
                .post()
                .withPath(TOKENREVIEWS)
                .andReply(provider(r -> 201, r -> {
                    TokenReview req = Serialization.unmarshal(body(r), TokenReview.class);
                    tokenReviews.add(req.getSpec().getToken());
                    String user = USERS.get(req.getSpec().getToken());
                    return new TokenReviewBuilder()
                            .withNewStatus()
                            .withAuthenticated(user != null)
                            .withNewUser()
                            .withUsername(user)
                            .withUid(user == null ? null : "uid-" + user)
                            .withGroups("system:authenticated", "team")
                            .addToExtra("scopes", List.of("sandboxes"))
                            .endUser()
                            .endStatus()
                            .build();
                }))
                .always();
        server.expect()
                .post()
                .withPath(SARS)
                .andReply(provider(r -> body(r).contains("\"broken\"") ? 500 : 201, r -> {
                    SubjectAccessReview q = Serialization.unmarshal(body(r), SubjectAccessReview.class);
                    asked.add(q);
                    if ("broken".equals(q.getSpec().getUser())) {
                        return "{\"kind\":\"Status\",\"status\":\"Failure\",\"code\":500}";
                    }
                    boolean ok = rbac(q.getSpec().getUser(), q.getSpec().getResourceAttributes());
                    return new SubjectAccessReviewBuilder(q)
                            .withNewStatus()
                            .withAllowed(ok)
                            .withReason(ok ? "RBAC: allowed" : "")
                            .endStatus()
                            .build();
                }))
                .always();
    }

    @AfterEach
    void stop() {
        backend.close();
        pool.shutdownNow();
    }

    private static ResponseProvider<Object> provider(
            Function<RecordedRequest, Integer> status, Function<RecordedRequest, Object> body) {
        return new ResponseProvider<>() {
            private Headers headers = new Headers.Builder().build();

            @Override
            public int getStatusCode(RecordedRequest r) {
                return status.apply(r);
            }

            @Override
            public Object getBody(RecordedRequest r) {
                return body.apply(r);
            }

            @Override
            public Headers getHeaders() {
                return headers;
            }

            @Override
            public void setHeaders(Headers h) {
                headers = h;
            }
        };
    }

    private ScopedAuthorizer authorizer(AtomicLong clock, int size) {
        return new ScopedAuthorizer(
                client, List.of(), Duration.ofSeconds(30), size, Duration.ofSeconds(60), pool, clock::get);
    }

    private RouterFixture router(Authorizer a) throws InterruptedException {
        return new RouterFixture(
                RouterFixture.config().withAllowLoopbackPodIp(true).withAddressPolicy(RouterFixture.loopbackAllowed()),
                io.sandboxd.router.resolve.PodCache.DISABLED,
                (ns, n) -> true,
                a,
                Map.of(
                        "sb.team-a.svc." + RouterFixture.DOMAIN, List.of(RouterFixture.LOOPBACK),
                        "other.team-a.svc." + RouterFixture.DOMAIN, List.of(RouterFixture.LOOPBACK),
                        "sb.team-b.svc." + RouterFixture.DOMAIN, List.of(RouterFixture.LOOPBACK)));
    }

    private HttpResponse<String> call(RouterFixture r, String token, String ns, String id, boolean podIp)
            throws Exception {
        return TokenReviewAuthorizerTest.send(
                r, backend.port(), token == null ? null : "Bearer " + token, ns, id, podIp);
    }

    @Test
    void callersReachOnlyTheSandboxesTheyAreGranted() throws Exception {
        try (ScopedAuthorizer a = authorizer(new AtomicLong(), 2048);
                RouterFixture r = router(a)) {
            assertThat(call(r, "alice-token", "team-a", "sb", false).statusCode())
                    .isEqualTo(200);
            assertThat(backend.last().headers()).doesNotContainKey("authorization");

            HttpResponse<String> otherName = call(r, "alice-token", "team-a", "other", false);
            assertThat(otherName.statusCode()).isEqualTo(403);
            assertThat(otherName.body())
                    .isEqualTo(
                            "{\"detail\":\"Forbidden: \\\"alice\\\" may not create sandboxes/proxy"
                                    + " (agents.x-k8s.io) \\\"other\\\" in namespace \\\"team-a\\\"; a Role or ClusterRole must grant it.\"}");
            HttpResponse<String> otherNs = call(r, "alice-token", "team-b", "sb", false);
            assertThat(otherNs.statusCode()).isEqualTo(403);
            assertThat(otherNs.body()).contains("in namespace \\\"team-b\\\"");
            assertThat(backend.seen).hasSize(1);

            assertThat(call(r, "ops-token", "team-b", "sb", false).statusCode()).isEqualTo(200);
            for (HttpResponse<String> res : List.of(otherName, otherNs)) {
                assertThat(res.body()).doesNotContain("alice-token");
            }
        }
    }

    /** The same verdicts for gRPC callers over HTTP/2, as the gRPC statuses a stub understands. */
    @Test
    void grpcCallersGetTheVerdictsAsGrpcStatuses() throws Exception {
        try (ScopedAuthorizer a = authorizer(new AtomicLong(), 2048);
                RouterFixture r = router(a);
                H2EchoBackend pod = new H2EchoBackend();
                H2RawClient h2 = new H2RawClient(r.port())) {
            java.util.function.BiFunction<String, Boolean, io.netty.handler.codec.http2.Http2Headers> call =
                    (token, podIp) -> {
                        var h = H2RawClient.request("POST", "/process.v1.ProcessService/Execute")
                                .add("content-type", "application/grpc")
                                .add("te", "trailers")
                                .add("x-sandbox-id", "sb")
                                .add("x-sandbox-namespace", "team-a")
                                .add("x-sandbox-port", Integer.toString(pod.port()));
                        if (token != null) {
                            h.add("authorization", "Bearer " + token);
                        }
                        if (podIp) {
                            h.add("x-sandbox-pod-ip", "127.0.0.1");
                        }
                        return h;
                    };
            H2RawClient.Answer none = h2.exchange(call.apply(null, false), null);
            assertThat(none.last("grpc-status")).isEqualTo("16"); // UNAUTHENTICATED
            assertThat(none.last("grpc-message")).isEqualTo("A bearer token is required.");
            H2RawClient.Answer stolen = h2.exchange(call.apply("stolen", false), null);
            assertThat(stolen.last("grpc-status")).isEqualTo("16");
            H2RawClient.Answer podIp = h2.exchange(call.apply("alice-token", true), null);
            assertThat(podIp.last("grpc-status")).isEqualTo("7"); // PERMISSION_DENIED
            assertThat(podIp.last("grpc-message"))
                    .isEqualTo("Forbidden: \"alice\" may not create sandboxes/pod-ip (agents.x-k8s.io) cluster-wide;"
                            + " a ClusterRole bound cluster-wide must grant it.")
                    .doesNotContain("alice-token");
            var otherSandbox = call.apply("alice-token", false).set("x-sandbox-id", "other");
            H2RawClient.Answer denied = h2.exchange(otherSandbox, null);
            assertThat(denied.last("grpc-status")).isEqualTo("7");
            assertThat(denied.last("grpc-message")).contains("sandboxes/proxy").contains("\"other\"");
            assertThat(pod.requests).isEmpty();

            H2RawClient.Answer allowed = h2.exchange(call.apply("alice-token", false), new byte[0]);
            assertThat(allowed.status()).isEqualTo("200");
            assertThat(pod.requests).hasSize(1);
            assertThat(pod.requests.get(0).get("authorization")).isNull();
        }
    }

    @Test
    void theReviewAsksAboutTheCallerAndTheSandbox() throws Exception {
        try (ScopedAuthorizer a = authorizer(new AtomicLong(), 2048)) {
            a.authorize("Bearer alice-token", new AccessRequest("team-a", "sb", false))
                    .get(60, TimeUnit.SECONDS);
            SubjectAccessReview q = asked.get(0);
            assertThat(q.getSpec().getUser()).isEqualTo("alice");
            assertThat(q.getSpec().getUid()).isEqualTo("uid-alice");
            assertThat(q.getSpec().getGroups()).containsExactly("system:authenticated", "team");
            assertThat(q.getSpec().getExtra()).containsEntry("scopes", List.of("sandboxes"));
            ResourceAttributes ra = q.getSpec().getResourceAttributes();
            assertThat(List.of(
                            ra.getGroup(),
                            ra.getResource(),
                            ra.getSubresource(),
                            ra.getVerb(),
                            ra.getNamespace(),
                            ra.getName()))
                    .containsExactly("agents.x-k8s.io", "sandboxes", "proxy", "create", "team-a", "sb");
            assertThat(Serialization.asJson(q)).doesNotContain("alice-token");
        }
    }

    @Test
    void podIpNeedsItsOwnClusterWidePermission() throws Exception {
        try (ScopedAuthorizer a = authorizer(new AtomicLong(), 2048);
                RouterFixture r = router(a)) {
            HttpResponse<String> alice = call(r, "alice-token", "team-a", "sb", true);
            assertThat(alice.statusCode()).isEqualTo(403);
            assertThat(alice.body())
                    .isEqualTo("{\"detail\":\"Forbidden: \\\"alice\\\" may not create sandboxes/pod-ip"
                            + " (agents.x-k8s.io) cluster-wide; a ClusterRole bound cluster-wide must grant it.\"}");
            assertThat(backend.seen).isEmpty();
            ResourceAttributes podIp = asked.get(asked.size() - 1).getSpec().getResourceAttributes();
            assertThat(podIp.getSubresource()).isEqualTo("pod-ip");
            assertThat(podIp.getNamespace()).isNull(); // cluster-scoped: a namespaced RoleBinding cannot grant it
            assertThat(podIp.getName()).isNull();

            assertThat(call(r, "ops-token", "team-a", "sb", true).statusCode()).isEqualTo(200);
            assertThat(backend.seen).hasSize(1);
        }
    }

    @Test
    void unauthenticatedCallersNeverCauseAnAccessReview() throws Exception {
        try (ScopedAuthorizer a = authorizer(new AtomicLong(), 2048);
                RouterFixture r = router(a)) {
            assertThat(call(r, null, "team-a", "sb", false).statusCode()).isEqualTo(401);
            HttpResponse<String> bad = call(r, "stolen", "team-a", "sb", false);
            assertThat(bad.statusCode()).isEqualTo(401);
            assertThat(bad.body()).isEqualTo("{\"detail\":\"The bearer token was not accepted.\"}");
            assertThat(asked).isEmpty();
        }
    }

    @Test
    void verdictsAreCachedBothWaysForTheTtlAndTheCacheIsBounded() throws Exception {
        AtomicLong now = new AtomicLong();
        try (ScopedAuthorizer a = authorizer(now, 2)) {
            AccessRequest sb = new AccessRequest("team-a", "sb", false);
            AccessRequest other = new AccessRequest("team-a", "other", false);
            a.authorize("Bearer alice-token", sb).get(60, TimeUnit.SECONDS);
            a.authorize("Bearer alice-token", other).exceptionally(t -> null).get(60, TimeUnit.SECONDS);
            assertThat(asked).hasSize(2);
            assertThat(tokenReviews).hasSize(1);
            for (int i = 0; i < 5; i++) {
                a.authorize("Bearer alice-token", sb).get(60, TimeUnit.SECONDS);
                a.authorize("Bearer alice-token", other)
                        .exceptionally(t -> null)
                        .get(60, TimeUnit.SECONDS);
            }
            assertThat(asked).hasSize(2); // both the allow and the deny were reused
            now.addAndGet(Duration.ofSeconds(31).toNanos());
            a.authorize("Bearer alice-token", sb).get(60, TimeUnit.SECONDS);
            assertThat(asked).hasSize(3);
            assertThat(tokenReviews).hasSize(2);
            a.authorize("Bearer ops-token", new AccessRequest("x", "y", false)).get(60, TimeUnit.SECONDS);
            a.authorize("Bearer ops-token", new AccessRequest("x", "z", false)).get(60, TimeUnit.SECONDS);
            assertThat(a.reviewCacheSize()).isEqualTo(2);
        }
    }

    @Test
    void apiFailuresAre500NeverCachedAndNeverOpen() throws Exception {
        try (ScopedAuthorizer a = authorizer(new AtomicLong(), 2048);
                RouterFixture r = router(a)) {
            HttpResponse<String> res = call(r, "broken-token", "team-a", "sb", false);
            assertThat(res.statusCode()).isEqualTo(500);
            assertThat(res.body()).isEqualTo("{\"detail\":\"Authorization check failed.\"}");
            call(r, "broken-token", "team-a", "sb", false);
            assertThat(asked.stream().filter(q -> "broken".equals(q.getSpec().getUser())))
                    .hasSize(2);
            assertThat(a.reviewCacheSize()).isZero();
            assertThat(backend.seen).isEmpty();
        }
    }

    /**
     * Decision latency on the mock API server: the first decision for a (token, sandbox) costs a
     * TokenReview and a SubjectAccessReview, the rest come from the caches. Printed for the README.
     */
    @Test
    void cachedDecisionsCostNoApiCall() throws Exception {
        try (ScopedAuthorizer a = authorizer(new AtomicLong(), 4096);
                RouterFixture r = router(a)) {
            int n = 200;
            for (int i = 0; i < n; i++) {
                assertThat(call(r, "ops-token", "ns-" + i, "sb", false).statusCode())
                        .isIn(200, 502);
                assertThat(call(r, "ops-token", "ns-" + i, "sb", false).statusCode())
                        .isIn(200, 502);
            }
            var uncached = r.metrics.authzTimer(false);
            var cached = r.metrics.authzTimer(true);
            // A review that completes before the router looks counts as immediate: a race, rarely won.
            assertThat(uncached.count() + cached.count()).isEqualTo(2L * n);
            assertThat(uncached.count()).isGreaterThan(n * 9L / 10);
            // The first decision pays for the review client's connection: the percentiles, not the mean, are the
            // figure.
            System.out.printf(
                    java.util.Locale.ROOT,
                    "authz decision latency (scoped, mock API server, %d each): uncached %s, cached %s%n",
                    n,
                    describe(uncached),
                    describe(cached));
            assertThat(cached.mean(TimeUnit.MILLISECONDS)).isLessThan(uncached.mean(TimeUnit.MILLISECONDS));
            assertThat(asked).hasSize(n);
        }
    }

    private static String describe(io.micrometer.core.instrument.Timer t) {
        StringBuilder b = new StringBuilder();
        for (var v : t.takeSnapshot().percentileValues()) {
            b.append(String.format(
                    java.util.Locale.ROOT, "p%.0f %.3f ms, ", v.percentile() * 100, v.value(TimeUnit.MILLISECONDS)));
        }
        return b.append(String.format(
                        java.util.Locale.ROOT,
                        "mean %.3f ms, max %.3f ms",
                        t.mean(TimeUnit.MILLISECONDS),
                        t.max(TimeUnit.MILLISECONDS)))
                .toString();
    }

    @Test
    void onlyAnExplicitAllowAllows() {
        SubjectAccessReview base = new SubjectAccessReviewBuilder().build();
        assertThat(AccessReviewer.allowed(null)).isFalse();
        assertThat(AccessReviewer.allowed(base)).isFalse();
        assertThat(AccessReviewer.allowed(new SubjectAccessReviewBuilder()
                        .withNewStatus()
                        .endStatus()
                        .build()))
                .isFalse();
        assertThat(AccessReviewer.allowed(new SubjectAccessReviewBuilder()
                        .withNewStatus()
                        .withAllowed(false)
                        .withEvaluationError("webhook down")
                        .endStatus()
                        .build()))
                .isFalse();
        assertThat(AccessReviewer.allowed(new SubjectAccessReviewBuilder()
                        .withNewStatus()
                        .withAllowed(true)
                        .withDenied(true)
                        .endStatus()
                        .build()))
                .isFalse();
        assertThat(AccessReviewer.allowed(new SubjectAccessReviewBuilder()
                        .withNewStatus()
                        .withAllowed(true)
                        .endStatus()
                        .build()))
                .isTrue();
        assertThat(Set.of(Permission.values())).hasSize(2);
    }
}
