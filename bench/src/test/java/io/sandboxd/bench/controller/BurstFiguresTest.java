package io.sandboxd.bench.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sandboxd.controller.standin.ApiStandIn.Request;
import io.sandboxd.controller.standin.ApiStandIn.Verb;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The latency arithmetic: the API's own time is taken out of each leg, and only the claim's requests count. */
class BurstFiguresTest {
    static final long MS = 1_000_000;

    static Request req(
            Verb v, String plural, String name, String sub, int code, double arrivedMs, double doneMs, String claim) {
        return new Request(v, plural, "ns", name, sub, code, (long) (arrivedMs * MS), (long) (doneMs * MS), claim);
    }

    @Test
    void legsRunFromTheEventToTheBindWriteAndFromItsResponseToTheStatusWriteLessTheApisTime() {
        List<Request> mine = List.of(
                // a lost race first (422), then a GET the controller made, then the adoption that won
                req(Verb.PATCH, "sandboxes", "m-1", null, 422, 1.0, 1.5, "c"),
                req(Verb.GET, "sandboxes", "m-2", null, 200, 2.0, 3.0, null),
                req(Verb.PATCH, "sandboxes", "m-2", null, 200, 4.0, 6.0, "c"),
                req(Verb.PATCH, "sandboxclaims", "c", "status", 200, 9.0, 10.0, "c"));
        BurstFigures.Latency l = BurstFigures.latency(0L, 10 * MS, mine);
        // leg 1: 4 ms to the winning patch, less 0.5 (the 422) and 1.0 (the GET) of API time
        assertThat(l.leg1Ms()).isCloseTo(2.5, within(1e-6));
        // leg 2: from the adoption's response (6) to the status write (9)
        assertThat(l.leg2Ms()).isCloseTo(3.0, within(1e-6));
        assertThat(l.totalMs()).isCloseTo(5.5, within(1e-6));
    }

    @Test
    void noFigureForAClaimNotSeenFromEventToStatusWrite() {
        List<Request> mine = List.of(req(Verb.PATCH, "sandboxes", "m", null, 200, 4.0, 6.0, "c"));
        assertThat(BurstFigures.latency(0L, 10 * MS, mine))
                .as("no status write")
                .isNull();
        assertThat(BurstFigures.latency(null, 10 * MS, mine))
                .as("event not seen")
                .isNull();
        List<Request> early = List.of(
                req(Verb.PATCH, "sandboxes", "m", null, 200, 4.0, 6.0, "c"),
                req(Verb.PATCH, "sandboxclaims", "c", "status", 200, 9.0, 10.0, "c"));
        assertThat(BurstFigures.latency(5 * MS, 10 * MS, early))
                .as("bind write before the event")
                .isNull();
    }

    @Test
    void aClaimsRequestsAreItsOwnTheSandboxesItWroteAndNothingElse() {
        List<Request> phase = List.of(
                req(Verb.PATCH, "sandboxes", "m-1", null, 200, 1, 2, "c"),
                req(Verb.GET, "sandboxes", "m-1", null, 200, 0.5, 0.6, null),
                req(Verb.PATCH, "sandboxes", "m-2", null, 200, 1, 2, "d"),
                req(Verb.PATCH, "sandboxclaims", "c", "status", 200, 3, 4, "c"),
                req(Verb.WATCH, "sandboxes", null, null, 200, 0, 9, null),
                new Request(Verb.PATCH, "sandboxes", "other-ns", "m-1", null, 200, 1, 2, "c"));
        List<Request> mine = new BurstFigures.RequestsByClaim("ns", phase).of("c");
        assertThat(mine).extracting(Request::name).containsExactly("m-1", "m-1", "c");
        assertThat(mine.get(0).verb()).isEqualTo(Verb.GET);
    }

    @Test
    void inFlightCountsOverlappingRequestsButNotWatches() {
        List<Request> phase = List.of(
                req(Verb.GET, "sandboxes", "a", null, 200, 0, 10, null),
                req(Verb.GET, "sandboxes", "b", null, 200, 1, 2, null),
                req(Verb.GET, "sandboxes", "c", null, 200, 1.5, 3, null),
                req(Verb.GET, "sandboxes", "d", null, 200, 3, 4, null),
                req(Verb.WATCH, "sandboxes", null, null, 200, 0, 100, null));
        assertThat(BurstFigures.maxInFlight(phase)).isEqualTo(3);
    }

    @Test
    void percentilesAreNearestRank() {
        List<Double> v = List.of(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0);
        assertThat(BurstFigures.pct(v, 0.5)).isEqualTo(5.0);
        assertThat(BurstFigures.pct(v, 0.99)).isEqualTo(10.0);
        assertThat(BurstFigures.pct(List.of(), 0.5)).isNaN();
    }
}
