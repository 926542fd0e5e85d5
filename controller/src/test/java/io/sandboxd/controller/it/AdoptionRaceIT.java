package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.standin.ApiStandIn;
import io.sandboxd.controller.standin.ApiStandIn.Request;
import io.sandboxd.controller.standin.ApiStandIn.Verb;
import io.sandboxd.controller.standin.ObjectStore;
import io.sandboxd.controller.standin.ObjectStore.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Races for a warm-pool member with another writer, made exact on the fast API stand-in: a
 * request hook changes the member at the moment the controller's write reaches the API, so the
 * write finds it changed (as when another replica, a user or the kubelet got there first). The
 * CRUD mock cannot play this: it applies no JSON-patch test and ignores DeleteOptions preconditions.
 */
class AdoptionRaceIT {
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
    void everyWatchFallsBackToHttpAfterOneWebSocketAttempt() {
        // A watch start is one refused upgrade (no target: OTHER) and one HTTP watch, logged when it ends.
        // fabric8 retries a 5xx refusal ten times with backoff (20-30 s per watch start, events held back).
        Await.until("every watch open after one WebSocket attempt", Duration.ofSeconds(60), 50, () -> {
            List<Request> all = h.api.requests();
            long open = h.api.openWatches();
            long watches = all.stream().filter(r -> r.verb() == Verb.WATCH).count() + open;
            long upgrades = all.stream().filter(r -> r.verb() == Verb.OTHER).count();
            return open > 0 && upgrades == watches;
        });
    }

    static void readyPool(String ns, int replicas) {
        store.create(store.kindOf("sandboxtemplates"), ns, WarmClaimBurstIT.json(ExtensionsIT.template(ns, "tpl")));
        store.create(pools, ns, WarmClaimBurstIT.json(ExtensionsIT.pool(ns, "pool", "tpl", replicas)));
        Await.until(
                "pool of " + replicas + " Ready",
                Duration.ofSeconds(60),
                50,
                () -> WarmClaimBurstIT.readyReplicas(store, pools, ns) == replicas);
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
        Set<String> raced = ConcurrentHashMap.newKeySet();
        h.api.addRequestHook((verb, plural, rns, name, sub, body) -> {
            if (ns.equals(rns)
                    && verb == Verb.PATCH
                    && "sandboxes".equals(plural)
                    && sub == null
                    && body != null
                    && ApiStandIn.controllingClaim(body) != null
                    && raced.isEmpty()
                    && raced.add(name)) {
                // Another writer changes the member first: the adoption's resourceVersion test fails.
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
        });
        int from = h.api.requests().size();
        store.create(claims, ns, WarmClaimBurstIT.json(ExtensionsIT.claim(ns, "c", "pool")));
        Await.until("claim bound", Duration.ofSeconds(60), 20, () -> !boundName(ns, "c")
                .isEmpty());
        String bound = boundName(ns, "c");
        // The stand-in logs a request once its response is written, a moment after the store has it.
        Await.until("the status write logged", Duration.ofSeconds(10), 20, () -> requestsIn(ns, from).stream()
                .anyMatch(AdoptionRaceIT::claimStatusWrite));

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
                mine.stream().filter(AdoptionRaceIT::claimStatusWrite).toList();
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
                () -> WarmClaimBurstIT.readyReplicas(store, pools, ns) == 1
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
}
