package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.app.Controllers;
import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.standin.ApiStandIn;
import io.sandboxd.controller.standin.ApiStandIn.Request;
import io.sandboxd.controller.standin.ApiStandIn.Verb;
import io.sandboxd.controller.standin.ObjectStore;
import io.sandboxd.controller.standin.ObjectStore.Kind;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 23's proof at the seed's scale, on the fast API stand-in (one controller for the class):
 * a burst of 1,000 claims against a Ready pool of 1,000, asserting counts and correctness, never
 * time: every claim bound warm exactly once, no Sandbox adopted twice, the pool refilled, and at
 * the API boundary at most two writes and no uncached read per claim (latency and throughput
 * come from the bench). And the races for a member with another writer, made exact: a request
 * hook changes the member at the moment the controller's write reaches the API, so the write
 * finds it changed (as when another replica, a user or the kubelet got there first). The CRUD
 * mock cannot play these: it applies no JSON-patch test and ignores DeleteOptions preconditions.
 */
class WarmClaimBurstIT {
    static final int N = Integer.getInteger("sandboxd.burst.claims", 1000);

    static StandInHarness h;
    static ObjectStore store;
    static Kind sandboxes;
    static Kind claims;
    static Kind pools;

    @BeforeAll
    static void start() throws Exception {
        h = new StandInHarness();
        store = h.store;
        sandboxes = store.kindOf("sandboxes");
        claims = store.kindOf("sandboxclaims");
        pools = store.kindOf("sandboxwarmpools");
    }

    @AfterAll
    static void stop() {
        h.close();
    }

    @Test
    void everyWatchIsAWebSocketAsAgainstARealApiServer() {
        // fabric8 asks for a WebSocket first and falls back to an HTTP watch only when the upgrade is
        // refused: no watch may be HTTP.
        Await.until("the informers' watches open", Duration.ofSeconds(60), 50, () -> h.api.openWatches() >= 8);
        assertThat(h.api.httpWatches()).isZero();
        assertThat(h.api.webSocketWatches()).isGreaterThanOrEqualTo(h.api.openWatches());
    }

    @Test
    void theWholeControllerHasOneSandboxWatch() {
        // The Sandbox controller's, which serves the claim and pool controllers too (SharedSandboxes).
        Await.until("the informers' watches open", Duration.ofSeconds(60), 50, () -> h.api.openWatches() >= 8);
        assertThat(h.api.openWatches("sandboxes")).isEqualTo(1);
        assertThat(h.api.openWatches("pods")).isEqualTo(1);
    }

    @Test
    void thousandClaimsAgainstPoolOfThousandAreAllWarmEachSandboxAdoptedOnceAndThePoolRefills() throws Exception {
        String ns = "burst";
        // Every claim a Sandbox was ever controlled by, and every Sandbox a claim was ever bound to.
        Map<String, Set<String>> controllersOfSandbox = new ConcurrentHashMap<>();
        Map<String, Set<String>> boundNamesOfClaim = new ConcurrentHashMap<>();
        store.addListener((kind, before, after) -> {
            if (after == null
                    || !ns.equals(after.path("metadata").path("namespace").asString())) return;
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
                String bound = after.path("status").path("sandbox").path("name").asString(null);
                if (bound != null)
                    boundNamesOfClaim
                            .computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet())
                            .add(bound);
            }
        });
        store.create(store.kindOf("sandboxtemplates"), ns, json(ExtensionsIT.template(ns, "tpl")));
        store.create(pools, ns, json(ExtensionsIT.pool(ns, "pool", "tpl", N)));
        Await.until("pool of " + N + " Ready", Duration.ofMinutes(5), 250, () -> readyReplicas(store, pools, ns) == N);

        int before = h.api.requests().size();
        long burstStart = System.nanoTime();
        for (int i = 0; i < N; i++) store.create(claims, ns, json(ExtensionsIT.claim(ns, "c-" + i, "pool")));
        Await.until(
                N + " claims bound",
                Duration.ofMinutes(5),
                100,
                () -> in(ns, claims).stream()
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
                () -> readyReplicas(store, pools, ns) == N && in(ns, sandboxes).size() == 2 * N);

        Map<String, JsonNode> sandboxByName = in(ns, sandboxes).stream()
                .collect(Collectors.toMap(s -> s.path("metadata").path("name").asString(), s -> s));
        Set<String> bound = new java.util.HashSet<>();
        for (JsonNode c : in(ns, claims)) {
            String claim = c.path("metadata").path("name").asString();
            String name = c.path("status").path("sandbox").path("name").asString();
            assertThat(boundNamesOfClaim.get(claim))
                    .as("claim %s bound exactly once", claim)
                    .containsExactly(name);
            assertThat(name).as("claim %s went warm", claim).startsWith("pool-");
            JsonNode sb = sandboxByName.get(name);
            assertThat(sb.path("metadata").path("labels").path(Keys.LAUNCH_TYPE).asString())
                    .isEqualTo("warm");
            assertThat(sb.path("metadata").path("labels").has(Keys.WARM_POOL_SANDBOX))
                    .isFalse();
            assertThat(sb.path("metadata").path("labels").path(Keys.CLAIM_UID).asString())
                    .isEqualTo(c.path("metadata").path("uid").asString());
            bound.add(name);
        }
        assertThat(bound).as("distinct Sandboxes bound").hasSize(N);
        assertThat(sandboxByName.values())
                .as("objects carry managedFields, as from an API server")
                .allSatisfy(
                        s -> assertThat(s.path("metadata").path("managedFields").size())
                                .isEqualTo(2));
        assertThat(controllersOfSandbox.values())
                .as("no Sandbox adopted by two claims")
                .allSatisfy(s -> assertThat(s).hasSize(1));
        assertThat(controllersOfSandbox).hasSize(N);

        List<Request> burst = h.api.requests().subList(before, h.api.requests().size()).stream()
                // Its own namespace and cluster-wide requests (an informer's relist), not the other tests'.
                .filter(r -> r.arrivedNanos() >= burstStart && (r.namespace() == null || ns.equals(r.namespace())))
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
                .filter(r -> r.verb().write() && r.claim() != null && "sandboxes".equals(r.plural()) && r.code() == 200)
                .count();
        long statusWrites = burst.stream()
                .filter(r -> r.verb().write() && "sandboxclaims".equals(r.plural()) && "status".equals(r.subresource()))
                .count();
        long uncachedReads = burst.stream().filter(r -> r.verb().uncachedRead()).count();
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

    @Test
    void aTemplateReadsItsNetworkPolicyFromTheInformerCacheEvenWhileRepairingDrift() {
        String ns = "np-cache";
        Kind templates = store.kindOf("sandboxtemplates");
        Kind policies = store.kindOf("networkpolicies");
        String np = "tpl-network-policy";
        int from = h.api.requests().size();
        store.create(templates, ns, json(ExtensionsIT.template(ns, "tpl")));
        Await.until("NetworkPolicy created", Duration.ofSeconds(60), 20, () -> requestsIn(ns, from).stream()
                .anyMatch(r -> r.verb() == Verb.CREATE && "networkpolicies".equals(r.plural())));
        // Someone edits the policy: the edit reaches the controller as an event, the template
        // reconciles and repairs the spec, with what it knows from its cache.
        store.update(
                policies,
                ns,
                np,
                o -> {
                    o.withObjectProperty("spec").putArray("policyTypes").add("Ingress");
                    return o;
                },
                false);
        Await.until("drift repaired", Duration.ofSeconds(60), 20, () -> requestsIn(ns, from).stream()
                .anyMatch(r -> r.verb() == Verb.UPDATE && "networkpolicies".equals(r.plural())));
        assertThat(store.get(policies, ns, np).path("spec").path("policyTypes").size())
                .as("policy types after the repair")
                .isEqualTo(2);
        assertThat(requestsIn(ns, from))
                .as("GET/LIST of the template's NetworkPolicy")
                .noneMatch(r -> r.verb().uncachedRead() && "networkpolicies".equals(r.plural()));
    }

    @Test
    void claimsTricklingInReconcileTheirPoolAtMostOncePerPeriod() throws Exception {
        // At 50 claims a second against a pool of 1,000, each adoption and each refill set off a
        // pass over every member and a status write of its own: 2.7 of each per claim.
        String ns = "trickle";
        int n = 30;
        readyPool(ns, n);
        int from = h.api.requests().size();
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            store.create(claims, ns, json(ExtensionsIT.claim(ns, "c" + i, "pool")));
            Thread.sleep(20);
        }
        Await.until(
                "all bound and the pool refilled",
                Duration.ofSeconds(60),
                20,
                () -> readyReplicas(store, pools, ns) == n
                        && java.util.stream.IntStream.range(0, n)
                                .allMatch(i -> !boundName(ns, "c" + i).isEmpty()));
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        long poolStatusWrites = requestsIn(ns, from).stream()
                .filter(r ->
                        r.verb().write() && "sandboxwarmpools".equals(r.plural()) && "status".equals(r.subresource()))
                .count();
        long periods = elapsedMs / Controllers.POOL_RECONCILE_PERIOD.toMillis() + 1;
        assertThat(poolStatusWrites)
                .as(
                        "pool status writes in %d ms (one reconcile per %s at most)",
                        elapsedMs, Controllers.POOL_RECONCILE_PERIOD)
                .isPositive()
                .isLessThanOrEqualTo(periods)
                .isLessThan(n);
    }

    @Test
    void aPodNameAnnotationWrittenFromAStaleCopyNeverDropsAnotherWritersAnnotation() {
        // The Sandbox has no annotations, so the pod-name annotation is written as the whole map. A
        // request hook adds another writer's annotation at the moment that write reaches the API.
        String ns = "stale-copy";
        Set<String> raced = raceAnotherWriter(ns, body -> body.toString().contains(Keys.POD_NAME));
        int from = h.api.requests().size();
        store.create(sandboxes, ns, json(ControllerHarness.sandbox(ns, "s")));
        Await.until("the pod-name annotation written", Duration.ofSeconds(30), 20, () -> "s"
                .equals(annotations(ns, "s").path(Keys.POD_NAME).asString("")));

        assertThat(raced).containsExactly("s");
        assertThat(annotations(ns, "s").path("example.com/other-writer").asString(""))
                .as("the other writer's annotation survives")
                .isEqualTo("was-first");
        // The stand-in logs a request once its response is written, after the store shows the write.
        Await.until("the annotation's write logged", Duration.ofSeconds(10), 20, () -> metadataPatchCodes(ns, from)
                .contains(200));
        assertThat(metadataPatchCodes(ns, from))
                .as("the guarded write refused, then one key added")
                .containsExactly(422, 200);
        assertThat(store.get(sandboxes, ns, "s").path("status").toString()).doesNotContain("ReconcilerError");
    }

    private static List<Integer> metadataPatchCodes(String ns, int from) {
        return requestsIn(ns, from).stream()
                .filter(r -> r.verb() == Verb.PATCH && "sandboxes".equals(r.plural()) && r.subresource() == null)
                .map(Request::code)
                .toList();
    }

    /**
     * Races another writer against the controller: when its first metadata PATCH of a Sandbox in
     * {@code ns} whose body matches {@code ours} reaches the API, that Sandbox is changed first
     * ({@link #annotateAsAnotherWriter}), so the write finds it moved. Returns the name raced.
     */
    private static Set<String> raceAnotherWriter(String ns, Predicate<JsonNode> ours) {
        Set<String> raced = ConcurrentHashMap.newKeySet();
        AtomicBoolean once = new AtomicBoolean();
        h.api.addRequestHook((verb, plural, rns, name, sub, body) -> {
            if (ns.equals(rns)
                    && verb == Verb.PATCH
                    && "sandboxes".equals(plural)
                    && sub == null
                    && body != null
                    && ours.test(body)
                    && once.compareAndSet(false, true)) {
                raced.add(name);
                annotateAsAnotherWriter(ns, name);
            }
        });
        return raced;
    }

    /** Another writer's change to a Sandbox: one annotation, which moves its resourceVersion. */
    private static void annotateAsAnotherWriter(String ns, String name) {
        store.update(
                sandboxes,
                ns,
                name,
                o -> {
                    o.withObjectProperty("metadata")
                            .withObjectProperty("annotations")
                            .put("example.com/other-writer", "was-first");
                    return o;
                },
                false);
    }

    private static JsonNode annotations(String ns, String name) {
        return store.get(sandboxes, ns, name).path("metadata").path("annotations");
    }

    static void readyPool(String ns, int replicas) {
        store.create(store.kindOf("sandboxtemplates"), ns, json(ExtensionsIT.template(ns, "tpl")));
        store.create(pools, ns, json(ExtensionsIT.pool(ns, "pool", "tpl", replicas)));
        Await.until(
                "pool of " + replicas + " Ready",
                Duration.ofSeconds(60),
                50,
                () -> readyReplicas(store, pools, ns) == replicas);
    }

    static List<Request> requestsIn(String ns, int from) {
        List<Request> all = h.api.requests();
        return all.subList(from, all.size()).stream()
                .filter(r -> ns.equals(r.namespace()) && r.verb() != Verb.WATCH)
                .sorted((a, b) -> Long.compare(a.arrivedNanos(), b.arrivedNanos()))
                .toList();
    }

    @Test
    void aLostAdoptionRaceMovesToTheNextMemberInTheSameReconcileWithoutBackoffOrAnErrorStatus() {
        String ns = "lost-race";
        readyPool(ns, 3);
        // Another writer changes the member first: the adoption's resourceVersion test fails.
        Set<String> raced = raceAnotherWriter(ns, body -> ApiStandIn.controllingClaim(body) != null);
        int from = h.api.requests().size();
        store.create(claims, ns, json(ExtensionsIT.claim(ns, "c", "pool")));
        Await.until("claim bound", Duration.ofSeconds(60), 20, () -> !boundName(ns, "c")
                .isEmpty());
        String bound = boundName(ns, "c");
        // The stand-in logs a request once its response is written, a moment after the store has it.
        Await.until("the status write logged", Duration.ofSeconds(10), 20, () -> requestsIn(ns, from).stream()
                .anyMatch(WarmClaimBurstIT::claimStatusWrite));

        List<Request> mine =
                requestsIn(ns, from).stream().filter(r -> "c".equals(r.claim())).toList();
        List<Request> adoptions = mine.stream()
                .filter(r -> r.verb() == Verb.PATCH && "sandboxes".equals(r.plural()))
                .toList();
        assertThat(raced).hasSize(1);
        assertThat(adoptions).as("adoption patches of the claim").hasSize(2);
        assertThat(adoptions.get(0).code()).as("the raced patch").isEqualTo(422);
        assertThat(adoptions.get(0).name()).isEqualTo(raced.iterator().next());
        assertThat(adoptions.get(1).code()).as("the retry").isEqualTo(200);
        assertThat(adoptions.get(1).name()).isEqualTo(bound);
        // Retried at once: no status write (an error or "pending" reason) between the lost race and the
        // retry, so the claim's one status write comes after the adoption and already names its Sandbox.
        List<Request> statusWrites =
                mine.stream().filter(WarmClaimBurstIT::claimStatusWrite).toList();
        assertThat(statusWrites).as("claim status writes").hasSize(1);
        assertThat(statusWrites.get(0).arrivedNanos())
                .isGreaterThan(adoptions.get(1).doneNanos());
        JsonNode claim = store.get(claims, ns, "c");
        assertThat(claim.path("status").path("conditions").toString()).doesNotContain("ReconcilerError", "Pending");
        JsonNode sb = store.get(sandboxes, ns, bound);
        assertThat(sb.path("metadata").path("labels").path(Keys.CLAIM_UID).asString())
                .as("bound warm to a pool member")
                .isEqualTo(claim.path("metadata").path("uid").asString());
    }

    @Test
    void aScaleDownNeverDeletesAMemberThatWasAdoptedAfterThePoolDecided() {
        String ns = "scale-race";
        readyPool(ns, 3);
        Set<String> adoptedMeanwhile = ConcurrentHashMap.newKeySet();
        h.api.addRequestHook((verb, plural, rns, name, sub, body) -> {
            if (ns.equals(rns)
                    && verb == Verb.DELETE
                    && "sandboxes".equals(plural)
                    && adoptedMeanwhile.isEmpty()
                    && adoptedMeanwhile.add(name)) {
                // A claim adopts the member between the pool's cache read and its delete.
                store.update(
                        sandboxes,
                        ns,
                        name,
                        o -> {
                            o.withObjectProperty("metadata")
                                    .putArray("ownerReferences")
                                    .addObject()
                                    .put("apiVersion", "extensions.agents.x-k8s.io/v1beta1")
                                    .put("kind", "SandboxClaim")
                                    .put("name", "elsewhere")
                                    .put("uid", "uid-of-elsewhere")
                                    .put("controller", true)
                                    .put("blockOwnerDeletion", true);
                            o.withObjectProperty("metadata")
                                    .withObjectProperty("labels")
                                    .remove(Keys.WARM_POOL_SANDBOX);
                            return o;
                        },
                        false);
            }
        });
        int from = h.api.requests().size();
        store.update(
                pools,
                ns,
                "pool",
                o -> {
                    o.withObjectProperty("spec").put("replicas", 1);
                    return o;
                },
                false);
        Await.until(
                "pool scaled to 1",
                Duration.ofSeconds(60),
                50,
                () -> readyReplicas(store, pools, ns) == 1
                        && store.get(pools, ns, "pool")
                                        .path("status")
                                        .path("replicas")
                                        .asInt()
                                == 1
                        && poolMembers(ns) == 1);
        assertThat(adoptedMeanwhile).hasSize(1);
        String adopted = adoptedMeanwhile.iterator().next();
        JsonNode sb = store.snapshot(sandboxes).stream()
                .filter(s -> ns.equals(s.path("metadata").path("namespace").asString())
                        && adopted.equals(s.path("metadata").path("name").asString()))
                .findFirst()
                .orElse(null);
        assertThat(sb).as("the adopted Sandbox %s still exists", adopted).isNotNull();
        assertThat(sb.path("metadata").has("deletionTimestamp"))
                .as("the adopted Sandbox is not being deleted")
                .isFalse();
        assertThat(sb.path("metadata")
                        .path("ownerReferences")
                        .get(0)
                        .path("name")
                        .asString())
                .isEqualTo("elsewhere");
        assertThat(requestsIn(ns, from).stream()
                        .filter(r -> r.verb() == Verb.DELETE && adopted.equals(r.name()))
                        .map(Request::code)
                        .toList())
                .as("the pool's delete of the member it no longer owns")
                .containsExactly(409);
    }

    static boolean claimStatusWrite(Request r) {
        return r.verb().write() && "sandboxclaims".equals(r.plural()) && "status".equals(r.subresource());
    }

    static String boundName(String ns, String claim) {
        return store.get(claims, ns, claim)
                .path("status")
                .path("sandbox")
                .path("name")
                .asString("");
    }

    static long poolMembers(String ns) {
        return store.snapshot(sandboxes).stream()
                .filter(s -> ns.equals(s.path("metadata").path("namespace").asString()))
                .filter(s -> s.path("metadata").path("labels").has(Keys.WARM_POOL_SANDBOX))
                .filter(s -> !s.path("metadata").has("deletionTimestamp"))
                .count();
    }

    /** The objects of a kind in one namespace (the class's tests share the stand-in). */
    static List<JsonNode> in(String ns, Kind k) {
        return store.snapshot(k).stream()
                .filter(o -> ns.equals(o.path("metadata").path("namespace").asString()))
                .toList();
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
