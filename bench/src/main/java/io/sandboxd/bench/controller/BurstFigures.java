package io.sandboxd.bench.controller;

import io.sandboxd.controller.standin.ApiStandIn.Request;
import io.sandboxd.controller.standin.ApiStandIn.Verb;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The figures of one burst, computed from the stand-in's request log and the {@link BindTracker}.
 *
 * <p>Controller latency of a claim = (its status write arrived − its ADDED event was sent) minus
 * the API's service time (arrival to response written) of every request made for the claim in
 * between, split at its bind write (the adoption patch, or the cold create): leg 1 runs from the
 * event to the bind write, leg 2 from the bind write's response to the status write. Loopback
 * transfer and the client's (de)serialisation count as controller time. Requests made for a
 * claim: those naming it (its status, a Sandbox of its name), those whose body makes it the
 * controller, and any request to a Sandbox such a write targeted (fabric8's GET before a patch).
 */
final class BurstFigures {
    /** A claim's controller time and its window: its event sent, its status write arrived ({@code System.nanoTime}). */
    record Latency(double totalMs, double leg1Ms, double leg2Ms, long fromNanos, long toNanos) {}

    final String label;
    final int claims;
    final int bound;
    final int warm;
    final double seconds;
    final List<Latency> latencies = new ArrayList<>();
    final double claimWritesPerClaim;
    final double writesPerClaim;
    final double uncachedReadsPerClaim;
    final Map<String, Double> requestsPerClaimByKind = new TreeMap<>();
    final List<Double> apiServiceMs = new ArrayList<>();
    final int apiMaxInFlight;
    final int rebinds;

    BurstFigures(String label, String ns, List<String> names, BindTracker t, List<Request> phase, long start) {
        this.label = label;
        this.claims = names.size();
        int boundCount = 0;
        int warmCount = 0;
        int rebound = 0;
        long lastBound = start;
        long claimWrites = 0;
        RequestsByClaim requests = new RequestsByClaim(ns, phase);
        for (String name : names) {
            String key = ns + "/" + name;
            Long at = t.boundAt.get(key);
            Set<String> boundTo = t.boundNames.getOrDefault(key, Set.of());
            if (at != null) {
                boundCount++;
                lastBound = Math.max(lastBound, at);
                if (!boundTo.contains(name)) {
                    warmCount++;
                }
            }
            if (boundTo.size() > 1) {
                rebound++;
            }
            List<Request> mine = requests.of(name);
            // The claim path's writes: its own status, and the writes that make it a Sandbox's controller.
            claimWrites += mine.stream()
                    .filter(r -> r.verb().write() && name.equals(r.claim()))
                    .count();
            Latency l = latency(t.claimEventSent.get(key), at, mine);
            if (l != null) {
                latencies.add(l);
            }
        }
        this.bound = boundCount;
        this.warm = warmCount;
        this.rebinds = rebound;
        this.seconds = (lastBound - start) / 1e9;
        latencies.sort((a, b) -> Double.compare(a.totalMs(), b.totalMs()));
        this.claimWritesPerClaim = (double) claimWrites / claims;
        long writes = 0;
        long reads = 0;
        for (Request r : phase) {
            if (r.verb() == Verb.WATCH) {
                continue;
            }
            writes += r.verb().write() ? 1 : 0;
            reads += r.verb().uncachedRead() ? 1 : 0;
            requestsPerClaimByKind.merge(
                    r.verb() + " " + r.plural() + (r.subresource() == null ? "" : "/" + r.subresource()),
                    1.0 / claims,
                    Double::sum);
            apiServiceMs.add(r.serviceNanos() / 1e6);
        }
        Collections.sort(apiServiceMs);
        this.writesPerClaim = (double) writes / claims;
        this.uncachedReadsPerClaim = (double) reads / claims;
        this.apiMaxInFlight = maxInFlight(phase);
    }

    /**
     * The phase's requests made for each claim: those naming it (its status, a Sandbox of its
     * name), those whose body makes it the controller, and any request to a Sandbox such a write
     * targeted (fabric8's GET before a patch). Indexed in one pass: scanning the whole phase once per
     * claim was a third of the bench JVM's CPU samples over a run (JFR, 2026-12-04).
     */
    static final class RequestsByClaim {
        private final Map<String, List<Request>> byClaim = new HashMap<>();
        private final Map<String, List<Request>> byName = new HashMap<>();
        private final Map<String, List<Request>> sandboxesByName = new HashMap<>();

        RequestsByClaim(String ns, List<Request> phase) {
            for (Request r : phase) {
                if (!ns.equals(r.namespace()) || r.verb() == Verb.WATCH) {
                    continue;
                }
                if (r.claim() != null) {
                    byClaim.computeIfAbsent(r.claim(), k -> new ArrayList<>()).add(r);
                }
                if (r.name() != null) {
                    byName.computeIfAbsent(r.name(), k -> new ArrayList<>()).add(r);
                    if ("sandboxes".equals(r.plural())) {
                        sandboxesByName
                                .computeIfAbsent(r.name(), k -> new ArrayList<>())
                                .add(r);
                    }
                }
            }
        }

        /** In the order they arrived. */
        List<Request> of(String claim) {
            Set<Request> out = Collections.newSetFromMap(new IdentityHashMap<>());
            List<Request> controlling = byClaim.getOrDefault(claim, List.of());
            out.addAll(controlling);
            out.addAll(byName.getOrDefault(claim, List.of()));
            for (Request r : controlling) {
                if ("sandboxes".equals(r.plural()) && r.name() != null) {
                    out.addAll(sandboxesByName.getOrDefault(r.name(), List.of()));
                }
            }
            List<Request> sorted = new ArrayList<>(out);
            sorted.sort((a, b) -> Long.compare(a.arrivedNanos(), b.arrivedNanos()));
            return sorted;
        }
    }

    /** Null when the claim was not seen from event to status write within the phase. */
    static Latency latency(Long eventSent, Long boundAt, List<Request> mine) {
        if (eventSent == null || boundAt == null) {
            return null;
        }
        Request bind = null;
        Request status = null;
        for (Request r : mine) {
            if (bind == null
                    && r.verb().write()
                    && "sandboxes".equals(r.plural())
                    && r.subresource() == null
                    && r.code() < 300) {
                bind = r;
            }
            if (status == null
                    && r.verb().write()
                    && "sandboxclaims".equals(r.plural())
                    && "status".equals(r.subresource())
                    && r.doneNanos() >= boundAt) {
                status = r;
            }
        }
        if (bind == null
                || status == null
                || bind.arrivedNanos() < eventSent
                || status.arrivedNanos() < bind.doneNanos()) {
            return null;
        }
        long leg1 = bind.arrivedNanos() - eventSent - apiTime(mine, eventSent, bind.arrivedNanos());
        long leg2 = status.arrivedNanos() - bind.doneNanos() - apiTime(mine, bind.doneNanos(), status.arrivedNanos());
        return new Latency((leg1 + leg2) / 1e6, leg1 / 1e6, leg2 / 1e6, eventSent, status.arrivedNanos());
    }

    private static long apiTime(List<Request> mine, long from, long to) {
        long sum = 0;
        for (Request r : mine) {
            if (r.arrivedNanos() >= from && r.doneNanos() <= to) {
                sum += r.serviceNanos();
            }
        }
        return sum;
    }

    static int maxInFlight(List<Request> phase) {
        List<long[]> edges = new ArrayList<>();
        for (Request r : phase) {
            if (r.verb() != Verb.WATCH) {
                edges.add(new long[] {r.arrivedNanos(), 1});
                edges.add(new long[] {r.doneNanos(), -1});
            }
        }
        edges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int cur = 0;
        int max = 0;
        for (long[] e : edges) {
            cur += (int) e[1];
            max = Math.max(max, cur);
        }
        return max;
    }

    double claimsPerSecond() {
        return seconds > 0 ? bound / seconds : 0;
    }

    static double pct(List<Double> sorted, double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
    }

    List<Double> totals() {
        return latencies.stream().map(Latency::totalMs).toList();
    }

    List<Double> legs(boolean first) {
        return latencies.stream()
                .map(l -> first ? l.leg1Ms() : l.leg2Ms())
                .sorted()
                .toList();
    }

    Map<String, Object> latencyJson(List<Double> sorted) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("p50", round(pct(sorted, 0.5)));
        m.put("p99", round(pct(sorted, 0.99)));
        m.put("max", round(sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() - 1)));
        m.put("n", sorted.size());
        return m;
    }

    static double round(double v) {
        return Double.isNaN(v) ? v : Math.round(v * 1000) / 1000.0;
    }
}
