package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.sandboxd.controller.core.WarmMembersTest;
import io.sandboxd.controller.model.Sandbox;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class RecentWritesTest {
    private final Map<ResourceID, Sandbox> informer = new HashMap<>();
    private final RecentWrites<Sandbox> recent = new RecentWrites<>(id -> Optional.ofNullable(informer.get(id)));

    /** A Sandbox at that version, already in the informer's cache. */
    private Sandbox cached(String name, String rv) {
        Sandbox sb = at(name, rv);
        informer.put(ResourceID.fromResource(sb), sb);
        return sb;
    }

    private static Sandbox at(String name, String rv) {
        Sandbox sb = WarmMembersTest.member(name, "2026-01-01T00:00:00Z");
        sb.getMetadata().setResourceVersion(rv);
        return sb;
    }

    @Test
    void aWriteIsReadUntilItsEchoArrivesAndTheEchoIsNoNews() {
        Sandbox before = cached("a", "10");
        Sandbox mine = at("a", "11");
        recent.wrote(mine);
        assertThat(recent.get(ResourceID.fromResource(mine))).containsSame(mine);
        assertThat(recent.pending()).containsExactly(mine);

        Sandbox echo = cached("a", "11");
        assertThat(recent.onEvent(echo)).isFalse();
        assertThat(recent.get(ResourceID.fromResource(echo))).containsSame(echo);
        assertThat(recent.pending()).isEmpty();
        // The next change is news again.
        assertThat(recent.onEvent(at("a", "12"))).isTrue();
    }

    @Test
    void anOlderEventThanTheWriteIsNoNewsAndKeepsTheWrite() {
        Sandbox mine = at("a", "20");
        recent.wrote(mine);
        assertThat(recent.onEvent(at("a", "19"))).isFalse();
        assertThat(recent.get(ResourceID.fromResource(mine))).containsSame(mine);
    }

    @Test
    void aNewerEventThanTheWriteIsNewsAndReplacesIt() {
        Sandbox mine = at("a", "20");
        recent.wrote(mine);
        Sandbox theirs = cached("a", "21");
        assertThat(recent.onEvent(theirs)).isTrue();
        assertThat(recent.get(ResourceID.fromResource(theirs))).containsSame(theirs);
        assertThat(recent.pending()).isEmpty();
    }

    @Test
    void aWriteTheCacheAlreadyHoldsOrPassedIsNotKept() {
        Sandbox cached = cached("a", "30");
        recent.wrote(at("a", "30"));
        recent.wrote(at("a", "29"));
        assertThat(recent.pending()).isEmpty();
        assertThat(recent.get(ResourceID.fromResource(cached))).containsSame(cached);
    }

    @Test
    void aDeleteForgetsTheWrite() {
        Sandbox mine = at("a", "5");
        recent.wrote(mine);
        recent.onDelete(at("a", "5"));
        assertThat(recent.pending()).isEmpty();
        assertThat(recent.get(ResourceID.fromResource(mine))).isEmpty();
    }

    @Test
    void eventsOfOtherObjectsAreNewsAndLeaveTheWrite() {
        Sandbox mine = at("a", "5");
        recent.wrote(mine);
        assertThat(recent.onEvent(at("b", "6"))).isTrue();
        assertThat(recent.onEvent(at("b", "4"))).isTrue();
        assertThat(recent.pending()).containsExactly(mine);
    }

    @Test
    void versionsThatAreNotNumbersAreKeptUntilAnyEventOfTheirObject() {
        Sandbox cached = cached("a", "x1");
        Sandbox mine = at("a", "x2");
        recent.wrote(mine);
        assertThat(recent.get(ResourceID.fromResource(mine))).containsSame(mine);
        assertThat(recent.onEvent(at("a", "x2"))).isFalse();
        recent.wrote(at("a", "x3"));
        assertThat(recent.onEvent(at("a", "x4"))).isTrue();
        assertThat(recent.pending()).isEmpty();
    }

    @Property
    void decimalVersionsOrderAsNumbers(@ForAll @LongRange(min = 0) long a, @ForAll @LongRange(min = 0) long b) {
        assertThat(Integer.signum(RecentWrites.order(Long.toString(a), Long.toString(b))))
                .isEqualTo(Integer.signum(Long.compare(a, b)));
    }

    @Test
    void versionsThatCannotBeOrderedAreEqualOnlyWhenTheSame() {
        assertThat(RecentWrites.order("abc", "abc")).isZero();
        assertThat(RecentWrites.order("abc", "abd")).isPositive();
        assertThat(RecentWrites.order("abd", "abc")).isPositive();
        assertThat(RecentWrites.order("012", "12")).isPositive();
        assertThat(RecentWrites.order("", "1")).isPositive();
        assertThat(RecentWrites.order(null, null)).isZero();
        assertThat(RecentWrites.order(null, "1")).isPositive();
    }
}
