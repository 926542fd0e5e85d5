package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.sandboxd.controller.core.Ownership;
import io.sandboxd.controller.core.WarmMembersTest;
import io.sandboxd.controller.model.Ref;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The one Sandbox watch as the claim and pool controllers see it, over a cache held in a map. */
class SharedSandboxesTest {
    private final MapCache cache = new MapCache();
    private final WarmPoolLedger ledger = new WarmPoolLedger();
    private final SharedSandboxes shared = new SharedSandboxes(ledger, Duration.ofSeconds(5));
    private final List<String> heard = new ArrayList<>();

    private static Sandbox member(String name, String rv) {
        Sandbox sb = WarmMembersTest.member(name, "2026-01-01T00:00:00Z");
        sb.getMetadata().setResourceVersion(rv);
        return sb;
    }

    private static SandboxClaim claim(String name) {
        SandboxClaim c = new SandboxClaim();
        c.getMetadata().setName(name);
        c.getMetadata().setNamespace("ns");
        c.getMetadata().setUid(name + "-uid");
        c.getSpec().setWarmPoolRef(new Ref("pool"));
        return c;
    }

    private static Sandbox adoptedBy(Sandbox member, SandboxClaim claim, String rv) {
        Sandbox sb = member(member.getMetadata().getName(), rv);
        sb.getMetadata().setOwnerReferences(List.of(Ownership.controllerRef(claim)));
        sb.getMetadata().setLabels(Map.of());
        return sb;
    }

    private SandboxEventRelay relay() {
        SandboxEventRelay relay = shared.relayFrom(new EventSourceContext<>(cache, null, null, Sandbox.class));
        shared.listen(new SharedSandboxes.SandboxListener() {
            @Override
            public void added(Sandbox sb, boolean news) {
                heard.add("added " + sb.getMetadata().getName() + " " + news);
            }

            @Override
            public void updated(Sandbox old, Sandbox sb, boolean news) {
                heard.add("updated " + sb.getMetadata().getName() + " " + news);
            }

            @Override
            public void deleted(Sandbox sb) {
                heard.add("deleted " + sb.getMetadata().getName());
            }
        });
        return relay;
    }

    @Test
    void theLedgerHoldsTheFirstListOnceTheCacheHasItBeforeItsEventsArrive() {
        cache.put(member("pool-a", "1"));
        cache.put(member("pool-b", "2"));
        SandboxEventRelay relay = relay();
        relay.start();
        shared.awaitSynced("test");
        assertThat(ledger.available("ns", "pool")).isEqualTo(2);
        // The list's own events, arriving afterwards, change nothing.
        relay.onResourceCreated(member("pool-a", "1"));
        relay.onResourceCreated(member("pool-b", "2"));
        assertThat(ledger.available("ns", "pool")).isEqualTo(2);
    }

    @Test
    void anAdoptionIsReadAtOnceItsEchoIsNoNewsAndTheNextChangeIs() {
        Sandbox before = member("pool-a", "1");
        cache.put(before);
        SandboxEventRelay relay = relay();
        relay.start();
        SandboxClaim c = claim("c");
        Sandbox adopted = adoptedBy(before, c, "2");
        shared.wrote(adopted);
        ResourceID id = ResourceID.fromResource(adopted);
        assertThat(shared.get(id)).containsSame(adopted);
        assertThat(shared.controlledBy(c)).containsExactly(adopted);
        assertThat(shared.controlledBy(claim("other"))).isEmpty();

        Sandbox echo = adoptedBy(before, c, "2");
        cache.put(echo);
        relay.onResourceUpdated(echo, before);
        Sandbox next = adoptedBy(before, c, "3");
        cache.put(next);
        relay.onResourceUpdated(next, echo);
        assertThat(heard).containsExactly("updated pool-a false", "updated pool-a true");
        assertThat(shared.get(id)).containsSame(next);
        assertThat(shared.controlledBy(c)).containsExactly(next);
        // The adopted member left the ledger with the echo.
        assertThat(ledger.available("ns", "pool")).isZero();
    }

    @Test
    void aDeleteReachesTheListenersAndTheLedger() {
        Sandbox sb = member("pool-a", "1");
        cache.put(sb);
        SandboxEventRelay relay = relay();
        relay.start();
        cache.remove(sb);
        relay.onResourceDeleted(sb);
        assertThat(heard).containsExactly("deleted pool-a");
        assertThat(ledger.available("ns", "pool")).isZero();
    }

    @Test
    void aFailureOnTheClaimOrPoolSideStaysInTheRelay() {
        SandboxEventRelay relay = relay();
        shared.listen(new SharedSandboxes.SandboxListener() {
            @Override
            public void added(Sandbox sb, boolean news) {
                throw new IllegalStateException("boom");
            }

            @Override
            public void updated(Sandbox old, Sandbox sb, boolean news) {}

            @Override
            public void deleted(Sandbox sb) {}
        });
        relay.onResourceCreated(member("pool-a", "1"));
        assertThat(heard).containsExactly("added pool-a true");
    }

    @Test
    void theClaimAndPoolSidesWaitForTheFirstListAndNameTheLimitWhenItDoesNotCome() {
        SharedSandboxes slow = new SharedSandboxes(ledger, Duration.ofMillis(50));
        slow.relayFrom(new EventSourceContext<>(cache, null, null, Sandbox.class));
        assertThatThrownBy(() -> slow.awaitSynced("claim controller"))
                .isInstanceOf(OperatorException.class)
                .hasMessageContaining("claim controller")
                .hasMessageContaining("cache sync timeout");
    }

    @Test
    void theSandboxControllerMustBeRegisteredFirst() {
        assertThatThrownBy(() -> shared.addIndexer("x", sb -> List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("must be registered before the claim and pool controllers");
        shared.relayFrom(new EventSourceContext<>(cache, null, null, Sandbox.class));
        assertThatThrownBy(() -> shared.relayFrom(new EventSourceContext<>(cache, null, null, Sandbox.class)))
                .isInstanceOf(IllegalStateException.class);
    }

    /** The Sandbox controller's primary cache, as far as {@link SharedSandboxes} uses it. */
    private static final class MapCache implements IndexerResourceCache<Sandbox> {
        private final Map<ResourceID, Sandbox> items = new LinkedHashMap<>();
        private final Map<String, Function<Sandbox, List<String>>> indexers = new HashMap<>();

        void put(Sandbox sb) {
            items.put(ResourceID.fromResource(sb), sb);
        }

        void remove(Sandbox sb) {
            items.remove(ResourceID.fromResource(sb));
        }

        @Override
        public void addIndexers(Map<String, Function<Sandbox, List<String>>> more) {
            indexers.putAll(more);
        }

        @Override
        public List<Sandbox> byIndex(String indexName, String indexKey) {
            Function<Sandbox, List<String>> f = indexers.get(indexName);
            return items.values().stream()
                    .filter(sb -> f.apply(sb).contains(indexKey))
                    .toList();
        }

        @Override
        public Optional<Sandbox> get(ResourceID id) {
            return Optional.ofNullable(items.get(id));
        }

        @Override
        public Stream<ResourceID> keys() {
            return items.keySet().stream();
        }

        @Override
        public Stream<Sandbox> list(Predicate<Sandbox> predicate) {
            return items.values().stream().filter(predicate);
        }

        @Override
        public Stream<Sandbox> list(String namespace, Predicate<Sandbox> predicate) {
            return list(sb -> namespace.equals(sb.getMetadata().getNamespace()) && predicate.test(sb));
        }
    }
}
