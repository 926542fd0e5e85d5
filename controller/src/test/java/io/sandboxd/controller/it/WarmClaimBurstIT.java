package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.standin.ApiStandIn;
import io.sandboxd.controller.standin.ApiStandIn.Request;
import io.sandboxd.controller.standin.ObjectStore;
import io.sandboxd.controller.standin.ObjectStore.Kind;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 23's proof at the seed's scale: a burst of 1,000 claims against a Ready pool of 1,000 on
 * the fast API stand-in. Asserts counts and correctness, never time: every claim bound warm
 * exactly once, no Sandbox adopted twice, the pool refilled, and at the API boundary at most
 * two writes and no uncached read per claim. (Latency and throughput come from the bench.)
 */
class WarmClaimBurstIT {
    static final int N = Integer.getInteger("sandboxd.burst.claims", 1000);

    @Test
    void thousandClaimsAgainstPoolOfThousandAreAllWarmEachSandboxAdoptedOnceAndThePoolRefills() throws Exception {
        try (StandInHarness h = new StandInHarness()) {
            ObjectStore store = h.store;
            Kind claims = store.kindOf("sandboxclaims");
            Kind sandboxes = store.kindOf("sandboxes");
            Kind pools = store.kindOf("sandboxwarmpools");
            String ns = "burst";
            // Every claim a Sandbox was ever controlled by, and every Sandbox a claim was ever bound to.
            Map<String, Set<String>> controllersOfSandbox = new ConcurrentHashMap<>();
            Map<String, Set<String>> boundNamesOfClaim = new ConcurrentHashMap<>();
            store.addListener((kind, before, after) -> {
                if (after == null) return;
                String name = after.path("metadata").path("name").asString();
                if (kind == sandboxes) {
                    for (JsonNode r : after.path("metadata").path("ownerReferences")) {
                        if (r.path("controller").asBoolean()
                                && "SandboxClaim".equals(r.path("kind").asString())) {
                            controllersOfSandbox
                                    .computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet())
                                    .add(r.path("uid").asString());
                        }
                    }
                } else if (kind == claims) {
                    String bound =
                            after.path("status").path("sandbox").path("name").asString(null);
                    if (bound != null)
                        boundNamesOfClaim
                                .computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet())
                                .add(bound);
                }
            });
            store.create(store.kindOf("sandboxtemplates"), ns, json(ExtensionsIT.template(ns, "tpl")));
            store.create(pools, ns, json(ExtensionsIT.pool(ns, "pool", "tpl", N)));
            Await.until(
                    "pool of " + N + " Ready", Duration.ofMinutes(5), 250, () -> readyReplicas(store, pools, ns) == N);

            int before = h.api.requests().size();
            long burstStart = System.nanoTime();
            for (int i = 0; i < N; i++) store.create(claims, ns, json(ExtensionsIT.claim(ns, "c-" + i, "pool")));
            Await.until(
                    N + " claims bound",
                    Duration.ofMinutes(5),
                    100,
                    () -> store.snapshot(claims).stream()
                                    .filter(c -> !c.path("status")
                                            .path("sandbox")
                                            .path("name")
                                            .asString("")
                                            .isEmpty())
                                    .count()
                            == N);
            Await.until(
                    "pool refilled to " + N + " Ready",
                    Duration.ofMinutes(5),
                    250,
                    () -> readyReplicas(store, pools, ns) == N
                            && store.snapshot(sandboxes).size() == 2 * N);

            Map<String, JsonNode> sandboxByName = store.snapshot(sandboxes).stream()
                    .collect(Collectors.toMap(
                            s -> s.path("metadata").path("name").asString(), s -> s));
            Set<String> bound = new java.util.HashSet<>();
            for (JsonNode c : store.snapshot(claims)) {
                String claim = c.path("metadata").path("name").asString();
                String name = c.path("status").path("sandbox").path("name").asString();
                assertThat(boundNamesOfClaim.get(claim))
                        .as("claim %s bound exactly once", claim)
                        .containsExactly(name);
                assertThat(name).as("claim %s went warm", claim).startsWith("pool-");
                JsonNode sb = sandboxByName.get(name);
                assertThat(sb.path("metadata")
                                .path("labels")
                                .path(Keys.LAUNCH_TYPE)
                                .asString())
                        .isEqualTo("warm");
                assertThat(sb.path("metadata").path("labels").has(Keys.WARM_POOL_SANDBOX))
                        .isFalse();
                assertThat(sb.path("metadata")
                                .path("labels")
                                .path(Keys.CLAIM_UID)
                                .asString())
                        .isEqualTo(c.path("metadata").path("uid").asString());
                bound.add(name);
            }
            assertThat(bound).as("distinct Sandboxes bound").hasSize(N);
            assertThat(controllersOfSandbox.values())
                    .as("no Sandbox adopted by two claims")
                    .allSatisfy(s -> assertThat(s).hasSize(1));
            assertThat(controllersOfSandbox).hasSize(N);

            List<Request> burst = h
                    .api
                    .requests()
                    .subList(before, h.api.requests().size())
                    .stream()
                    .filter(r -> r.arrivedNanos() >= burstStart)
                    .toList();
            Map<String, Long> byKind = new HashMap<>();
            for (Request r : burst)
                if (r.verb() != ApiStandIn.Verb.WATCH)
                    byKind.merge(
                            r.verb() + " " + r.plural() + (r.subresource() == null ? "" : "/" + r.subresource()),
                            1L,
                            Long::sum);
            System.out.printf("BURST-IT: requests during the burst and refill, by verb and resource: %s%n", byKind);
            long claimWrites = burst.stream()
                    .filter(r -> r.verb().write() && r.claim() != null)
                    .count();
            long adoptions = burst.stream()
                    .filter(r ->
                            r.verb().write() && r.claim() != null && "sandboxes".equals(r.plural()) && r.code() == 200)
                    .count();
            long statusWrites = burst.stream()
                    .filter(r ->
                            r.verb().write() && "sandboxclaims".equals(r.plural()) && "status".equals(r.subresource()))
                    .count();
            long uncachedReads =
                    burst.stream().filter(r -> r.verb().uncachedRead()).count();
            assertThat(adoptions).as("successful adoption patches").isEqualTo(N);
            assertThat(statusWrites).as("claim status writes").isEqualTo(N);
            assertThat(claimWrites)
                    .as("writes for claims (adoption patches incl. lost races + status)")
                    .isLessThanOrEqualTo(2L * N);
            assertThat(uncachedReads).as("GET/LIST requests during the burst").isZero();
            // Each controller's reconciles ran on its own workers (JOSDK's task naming still routes).
            assertThat(h.workers.unrouted()).as("reconciles on the shared pool").isZero();
            assertThat(h.workers.completed(io.sandboxd.controller.app.Controllers.CLAIM))
                    .isGreaterThanOrEqualTo(N);
            assertThat(h.workers.completed(io.sandboxd.controller.app.Controllers.SANDBOX))
                    .isGreaterThanOrEqualTo(2L * N);
        }
    }

    static int readyReplicas(ObjectStore store, Kind pools, String ns) {
        try {
            return store.get(pools, ns, "pool")
                    .path("status")
                    .path("readyReplicas")
                    .asInt(-1);
        } catch (ObjectStore.ApiException e) {
            return -1;
        }
    }

    static ObjectNode json(Object o) {
        return ObjectStore.fromModel(o);
    }
}
