package io.sandboxd.reliability.soak;

import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.proc.ProcessObserver;
import io.sandboxd.testkit.proc.ResourceSnapshot;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The soak: a warm-up with the full mix (so thread pools and buffers reach their working size),
 * a baseline of the daemon's resources, the timed load, a check of every file against the
 * clients' models, then — after all client connections are closed — a wait for the daemon to
 * settle and a comparison with the baseline.
 */
public final class SoakRun {
    /** Soak clients per {@link SandboxdClient} (one gRPC channel and one HTTP client each). */
    private static final int CLIENTS_PER_CHANNEL = 4;

    private final SoakSettings settings;
    private final PrintStream progress;
    private final Optional<ProcessObserver> observer;
    /** Heap after GC is measured (and checked) for a JVM only: a probe of anything else would kill it. */
    private final boolean jvm;

    private final Tally tally = new Tally();
    private final SharedFiles shared = new SharedFiles();

    public SoakRun(SoakSettings settings, PrintStream progress) {
        this.settings = settings;
        this.progress = progress;
        this.observer = settings.daemonPid().map(ProcessObserver::new);
        this.jvm = observer.map(ProcessObserver::isJvm).orElse(false);
        if (System.getProperty("jdk.httpclient.keepalive.timeout") == null) {
            // Too late if an HttpClient was already used in this JVM; SoakMain sets it first thing.
            System.setProperty("jdk.httpclient.keepalive.timeout", "2");
        }
    }

    public SoakReport run() throws IOException, InterruptedException {
        try (SandboxdClient admin = client()) {
            return run(admin);
        }
    }

    private SoakReport run(SandboxdClient admin) throws IOException, InterruptedException {
        tally.request();
        int cleared = deleteAll(admin);
        if (cleared != 204 && cleared != 404) {
            tally.error("setup", "DELETE soak?recursive=true gave " + cleared);
        }
        observer.filter(o -> !jvm)
                .ifPresent(o -> progress.println(
                        "pid " + o.pid() + " is not a JVM: its heap after GC is not measured (nor checked)"));

        progress.printf("warm-up: %s with %d clients%n", settings.warmup(), settings.clients());
        phase("w", settings.warmup(), Optional.empty());

        Optional<ResourceSnapshot> baseline = observer.map(o -> {
            sleep(3000);
            return o.snapshotWithHeap();
        });
        baseline.ifPresent(b -> progress.println("baseline: " + b.describe()));

        progress.printf("load: %s with %d clients%n", settings.duration(), settings.clients());
        PeakTracker peak = new PeakTracker();
        phase("c", settings.duration(), Optional.of(peak));

        tally.request();
        int removed = deleteAll(admin);
        if (removed != 204) {
            tally.error("cleanup", "DELETE soak?recursive=true gave " + removed);
        }

        Optional<ResourceSnapshot> after = Optional.empty();
        List<String> failures = new ArrayList<>();
        if (observer.isPresent() && baseline.isPresent()) {
            after = Optional.of(settle(observer.get(), baseline.get()));
            failures.addAll(
                    SoakReport.compare(baseline.get(), peak.peak().orElse(after.get()), after.get(), settings, jvm));
        }
        return new SoakReport(
                settings.warmup().plus(settings.duration()),
                settings.clients(),
                tally.requests(),
                tally.errors(),
                tally.opCounts(),
                tally.firstErrors(),
                baseline,
                peak.peak(),
                after,
                failures);
    }

    private SandboxdClient client() {
        return SandboxdClient.builder()
                .grpcTarget(settings.grpcTarget())
                .restBase(settings.restBase())
                .token(settings.token().orElse(null))
                .build();
    }

    /** {@code DELETE soak?recursive=true}: its HTTP status. */
    private int deleteAll(SandboxdClient admin) throws IOException, InterruptedException {
        return SoakClient.http(admin, settings.token(), "DELETE", "/v1/files/soak?recursive=true", null)
                .statusCode();
    }

    /** Runs the clients for {@code length}, then checks every client's files, then closes its connections. */
    private void phase(String prefix, Duration length, Optional<PeakTracker> peak) throws InterruptedException {
        int channelCount = (settings.clients() + CLIENTS_PER_CHANNEL - 1) / CLIENTS_PER_CHANNEL;
        List<SandboxdClient> connections = new ArrayList<>();
        for (int i = 0; i < channelCount; i++) {
            connections.add(client());
        }
        List<SoakClient> clients = new ArrayList<>();
        for (int i = 0; i < settings.clients(); i++) {
            clients.add(new SoakClient(
                    prefix + i,
                    connections.get(i / CLIENTS_PER_CHANNEL),
                    settings.token(),
                    tally,
                    shared,
                    settings.seed() * 31 + prefix.hashCode() * 7L + i));
        }
        long end = System.nanoTime() + length.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(settings.clients());
        List<Future<?>> running = new ArrayList<>();
        for (SoakClient c : clients) {
            running.add(pool.submit(() -> c.runUntil(() -> System.nanoTime() >= end)));
        }
        long lastReport = System.nanoTime();
        while (System.nanoTime() < end) {
            Thread.sleep(Math.min(1000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
            if (System.nanoTime() - lastReport >= TimeUnit.SECONDS.toNanos(5)) {
                lastReport = System.nanoTime();
                String res = observer.map(o -> {
                            ResourceSnapshot q = o.snapshot();
                            peak.ifPresent(p -> p.add(q));
                            return " | " + q.describe();
                        })
                        .orElse("");
                progress.printf("  %d requests, %d errors%s%n", tally.requests(), tally.errors(), res);
            }
        }
        for (Future<?> f : running) {
            try {
                f.get(5, TimeUnit.MINUTES);
            } catch (Exception e) {
                tally.error("client", "client thread did not finish: " + e);
            }
        }
        List<Future<?>> checks = new ArrayList<>();
        for (SoakClient c : clients) {
            checks.add(pool.submit(c::verifyAll));
        }
        for (Future<?> f : checks) {
            try {
                f.get(5, TimeUnit.MINUTES);
            } catch (Exception e) {
                tally.error("final-verify", "verification did not finish: " + e);
            }
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        connections.forEach(SandboxdClient::close);
    }

    /** Polls until the daemon is back within tolerance of the baseline (or the settle timeout passes). */
    private ResourceSnapshot settle(ProcessObserver o, ResourceSnapshot base) {
        long deadline = System.nanoTime() + settings.settleTimeout().toNanos();
        ResourceSnapshot q = o.snapshot();
        while (System.nanoTime() < deadline) {
            q = o.snapshot();
            if (q.threads() <= base.threads() + settings.threadSlack(base)
                    && q.fds() <= base.fds() + settings.fdTolerance()
                    && q.liveDescendants() <= base.liveDescendants()
                    && q.zombies() == 0) {
                break;
            }
            sleep(1000);
        }
        // A second full GC can free what the first only made unreachable (e.g. finalizable/cleaner objects).
        ResourceSnapshot best = o.snapshotWithHeap();
        for (int i = 0; i < 2 && exceedsHeap(base, best); i++) {
            sleep(2000);
            ResourceSnapshot again = o.snapshotWithHeap();
            if (heapOf(again) < heapOf(best)) {
                best = again;
            }
        }
        progress.println("after: " + best.describe());
        return best;
    }

    private boolean exceedsHeap(ResourceSnapshot base, ResourceSnapshot now) {
        OptionalLong b = base.heapAfterGcBytes();
        return b.isPresent()
                && heapOf(now) > b.getAsLong() + Math.max(settings.heapToleranceBytes(), b.getAsLong() / 5);
    }

    private static long heapOf(ResourceSnapshot s) {
        return s.heapAfterGcBytes().orElse(Long.MAX_VALUE);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Field-wise maximum of the snapshots seen during the load. */
    static final class PeakTracker {
        private ResourceSnapshot peak;

        synchronized void add(ResourceSnapshot s) {
            peak = peak == null
                    ? s
                    : new ResourceSnapshot(
                            Math.max(peak.threads(), s.threads()),
                            Math.max(peak.fds(), s.fds()),
                            Math.max(peak.rssBytes(), s.rssBytes()),
                            Math.max(peak.privateDirtyBytes(), s.privateDirtyBytes()),
                            OptionalLong.empty(),
                            Math.max(peak.liveDescendants(), s.liveDescendants()),
                            Math.max(peak.zombies(), s.zombies()));
        }

        synchronized Optional<ResourceSnapshot> peak() {
            return Optional.ofNullable(peak);
        }
    }
}
