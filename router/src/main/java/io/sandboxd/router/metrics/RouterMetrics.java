package io.sandboxd.router.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sandboxd.router.resolve.PodCache;
import io.sandboxd.router.resolve.ResolvedTarget;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The router's meters; every meter is created once and looked up without allocation on the hot path. */
public final class RouterMetrics {
    /**
     * Histogram buckets of {@code sandbox_router_request_duration_seconds}: a small request to a Pod
     * on the node network takes about a millisecond; file transfers and code runs take seconds to
     * minutes; 180 s is the default --proxy-timeout, after which the router answers 504. Buckets,
     * unlike client-side percentiles, add up across router replicas.
     */
    static final Duration[] REQUEST_BUCKETS = {
        Duration.ofMillis(1),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofSeconds(60),
        Duration.ofSeconds(180)
    };

    /**
     * Histogram buckets of {@code sandbox_router_authz_duration_seconds}: a decision from the verdict
     * caches takes about 0.1 ms (p50 0.084 ms measured); one that asks the API server (TokenReview +
     * SubjectAccessReview) 10-100 ms (p50 17.6 ms, p99 105 ms on the mock); 10 s is the default
     * --authz-tokenreview-timeout, after which the caller gets a 500.
     */
    static final Duration[] AUTHZ_BUCKETS = {
        Duration.ofNanos(100_000),
        Duration.ofNanos(500_000),
        Duration.ofMillis(1),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(10)
    };

    private final MeterRegistry registry;
    private final Timer[] byStatusClass = new Timer[6];
    private final Counter[] bySource = new Counter[ResolvedTarget.Source.values().length];
    private final Counter[] refusedBySource = new Counter[ResolvedTarget.Source.values().length];
    private final Counter connectFailures;
    private final Counter cacheEvictions;
    private final Counter upgrades;
    private final Counter timeouts;
    private final AtomicInteger activeUpgrades = new AtomicInteger();
    private final ConcurrentHashMap<String, Counter> authzDenied = new ConcurrentHashMap<>();
    private final Timer authzFromCache;
    private final Timer authzFromApi;

    public RouterMetrics(MeterRegistry registry, PodCache cache) {
        this.registry = registry;
        for (int i = 1; i <= 5; i++) {
            byStatusClass[i] = Timer.builder("sandbox_router_request_duration")
                    .description("Proxied requests until the response ends (or the upgrade switches)")
                    .tag("code", i + "xx")
                    .serviceLevelObjectives(REQUEST_BUCKETS)
                    .register(registry);
        }
        for (ResolvedTarget.Source s : ResolvedTarget.Source.values()) {
            bySource[s.ordinal()] = Counter.builder("sandbox_router_resolutions")
                    .description("Backend resolutions by source (pod_ip > cache > dns)")
                    .tag("source", s.tag())
                    .register(registry);
            refusedBySource[s.ordinal()] = Counter.builder("sandbox_router_refused_addresses")
                    .description("Targets not dialled because an address is restricted, by source")
                    .tag("source", s.tag())
                    .register(registry);
        }
        // every refusal code there is (AuthzException: 401, 403) exported from the start, at 0: a
        // series that appears only with the first refusal hides it from rate() and alerts
        for (int code : new int[] {401, 403}) {
            deniedCounter(code);
        }
        authzFromCache = authzTimer(registry, "true");
        authzFromApi = authzTimer(registry, "false");
        connectFailures =
                Counter.builder("sandbox_router_backend_connect_failures").register(registry);
        cacheEvictions = Counter.builder("sandbox_router_cache_evictions").register(registry);
        upgrades = Counter.builder("sandbox_router_upgrades")
                .description("Upgraded (e.g. WebSocket) connections")
                .register(registry);
        timeouts = Counter.builder("sandbox_router_timeouts").register(registry);
        registry.gauge("sandbox_router_upgrades_active", activeUpgrades);
        registry.gauge("sandbox_router_cache_pods", cache, PodCache::size);
    }

    private static Timer authzTimer(MeterRegistry registry, String cached) {
        return Timer.builder("sandbox_router_authz_duration")
                .description("Authorization decisions; cached=true: decided at once (verdict caches, allow-all)")
                .tag("cached", cached)
                .publishPercentiles(0.5, 0.99)
                .serviceLevelObjectives(AUTHZ_BUCKETS)
                .register(registry);
    }

    private Counter deniedCounter(int status) {
        return authzDenied.computeIfAbsent(Integer.toString(status), s -> Counter.builder("sandbox_router_authz_denied")
                .tag("code", s)
                .register(registry));
    }

    /** @param cached whether the decision was there at once (cache or no API needed) */
    public void authzDecision(boolean cached, long startNanos) {
        (cached ? authzFromCache : authzFromApi).record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    public Timer authzTimer(boolean cached) {
        return cached ? authzFromCache : authzFromApi;
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void request(int status, long startNanos) {
        int c = status / 100;
        byStatusClass[c >= 1 && c <= 5 ? c : 5].record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    public void resolved(ResolvedTarget.Source s) {
        bySource[s.ordinal()].increment();
    }

    public double resolvedCount(ResolvedTarget.Source s) {
        return bySource[s.ordinal()].count();
    }

    public void refusedAddress(ResolvedTarget.Source s) {
        refusedBySource[s.ordinal()].increment();
    }

    public double refusedAddressCount(ResolvedTarget.Source s) {
        return refusedBySource[s.ordinal()].count();
    }

    public void connectFailure() {
        connectFailures.increment();
    }

    public void cacheEviction() {
        cacheEvictions.increment();
    }

    public void timeout() {
        timeouts.increment();
    }

    public void authzDenied(int status) {
        deniedCounter(status).increment();
    }

    public void upgradeOpened() {
        upgrades.increment();
        activeUpgrades.incrementAndGet();
    }

    public void upgradeClosed() {
        activeUpgrades.decrementAndGet();
    }

    public int activeUpgrades() {
        return activeUpgrades.get();
    }
}
