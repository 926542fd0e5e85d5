package io.sandboxd.bench.controller;

import com.google.gson.GsonBuilder;
import io.sandboxd.bench.ClientJvm;
import io.sandboxd.controller.model.Ref;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import io.sandboxd.controller.standin.ApiStandIn;
import io.sandboxd.controller.standin.ApiStandIn.Request;
import io.sandboxd.controller.standin.ObjectStore;
import io.sandboxd.controller.standin.ObjectStore.Kind;
import io.sandboxd.controller.standin.StandInKubelet;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Warm and cold SandboxClaim bursts against the controller's real jar, run as its own process,
 * with the fast API stand-in (from the controller's tests) in this JVM playing the API server,
 * scheduler and kubelet. Per launch type: a burst paced at {@code --rate} (latency, requests,
 * CPU per claim, heap/RSS) and a flood of the same size created at once (throughput). Warm-up
 * rounds first, their objects deleted after each, so the JIT has compiled the hot path as it would
 * have in a long-running controller.
 * Run: {@code java -jar bench/target/sandboxd-bench.jar controller --json FILE}.
 */
@Command(
        name = "sandboxd-bench controller",
        mixinStandardHelpOptions = true,
        description =
                "Warm and cold claim bursts against controller/target/sandboxd-controller.jar on a fast API stand-in.")
public final class ControllerBenchmark implements Callable<Integer> {
    static final String DEFAULT_JAR = "controller/target/sandboxd-controller.jar";
    static final Duration PHASE_TIMEOUT = Duration.ofMinutes(5);
    static final int MAX_DELETE_SWEEPS = 10;
    /** This JVM's CPU time: the other tenant of the machine's cores during a burst. */
    private static final com.sun.management.OperatingSystemMXBean BENCH_OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    @Option(names = "--claims", defaultValue = "1000", description = "Claims per burst (default ${DEFAULT-VALUE}).")
    int claims;

    @Option(
            names = "--rate",
            defaultValue = "300",
            description = "Claims created per second in the paced burst (default ${DEFAULT-VALUE}).")
    double rate;

    @Option(
            names = "--warmup-claims",
            defaultValue = "1000",
            description = "Claims of each unmeasured warm-up round, warm and cold (default ${DEFAULT-VALUE}).")
    int warmupClaims;

    @Option(
            names = "--warmup-rounds",
            defaultValue = "6",
            description =
                    "Warm-up rounds (default ${DEFAULT-VALUE}: C2 has compiled the hot path by then). After each round its objects are deleted, as a"
                            + " cluster's garbage collector would once their claims are gone, so the controller's caches do"
                            + " not grow with the rounds.")
    int warmupRounds;

    @Option(
            names = "--pod-start-delay",
            defaultValue = "0",
            description = "Milliseconds from Pod creation to Running+Ready (default ${DEFAULT-VALUE}).")
    long podStartDelayMs;

    @Option(
            names = "--managed-fields",
            description = "The stand-in stores metadata.managedFields on every object, as an API server does"
                    + " (off by default, so figures compare with runs before the option).")
    boolean managedFields;

    @Option(
            names = "--pod-defaults",
            description = "New Pods get an API server's defaults (service-account token volume, tolerations, ...)"
                    + " and started ones a kubelet's full status (every condition, a status per container), as in a"
                    + " cluster (off by default, so figures compare with runs before the option).")
    boolean podDefaults;

    @Option(
            names = "--machine-stalls",
            description = "Measure the machine's stalls in each burst with a real-time sleeper per CPU (root,"
                    + " taskset and chrt; off by default: its 1,000 wake-ups a second shared the cores too).")
    boolean measureMachineStalls;

    @Option(
            names = "--controller-jar",
            defaultValue = DEFAULT_JAR,
            description = "The controller jar (default ${DEFAULT-VALUE}).")
    Path jar;

    /** What controller/deploy runs with (G1 with a 5 ms pause goal, 512k stacks), the heap at 50% of its 768Mi limit. */
    @Option(
            names = "--controller-jvm-opts",
            defaultValue = "-XX:+UseG1GC -XX:MaxGCPauseMillis=5 -Xss512k -Xmx384m",
            description = "JVM options of the controller process (default: as controller/deploy, ${DEFAULT-VALUE}).")
    String jvmOpts;

    @Option(
            names = "--controller-args",
            defaultValue = "",
            description = "Extra controller flags, e.g. \"--claim-workers 16\".")
    String controllerArgs;

    @Option(
            names = "--launch-types",
            split = ",",
            defaultValue = "warm,cold",
            description = "Which bursts to run (default ${DEFAULT-VALUE}).")
    List<String> launchTypes;

    @Option(
            names = "--json",
            defaultValue = "controller-benchmark.json",
            description = "Where to write results (default ${DEFAULT-VALUE}).")
    Path json;

    private ObjectStore store;
    private ApiStandIn api;
    private BindTracker tracker;
    private ControllerProcess controller;
    private MachineStalls machineStalls;
    private Kind claimsKind;
    private Kind poolsKind;
    private Kind sandboxesKind;

    public static int run(String[] args) {
        return new CommandLine(new ControllerBenchmark()).execute(args);
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        if (!Files.isRegularFile(jar)) {
            System.err.println("no controller jar at " + jar
                    + "; build it with ./mvnw -B -q -pl controller,bench -am -DskipTests package");
            return 2;
        }
        if (warmupRounds < 1) {
            System.err.println("--warmup-rounds must be at least 1, got " + warmupRounds);
            return 2;
        }
        store = new ObjectStore();
        if (managedFields) store.recordManagedFields();
        if (podDefaults) store.applyPodDefaults();
        api = new ApiStandIn(store);
        claimsKind = store.kindOf("sandboxclaims");
        poolsKind = store.kindOf("sandboxwarmpools");
        sandboxesKind = store.kindOf("sandboxes");
        tracker = new BindTracker(api);
        try (StandInKubelet kubelet = new StandInKubelet(store, Duration.ofMillis(podStartDelayMs));
                MachineStalls stalls = measureMachineStalls ? MachineStalls.start() : MachineStalls.off()) {
            machineStalls = stalls;
            controller = ControllerProcess.start(jar, split(jvmOpts), api.url(), split(controllerArgs));
            ControllerProcess started = controller;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "controller-stop")); // also on ^C
            out.printf("[bench] controller pid %d on %s (log %s)%n", controller.pid(), api.url(), controller.log);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("method", method());
            for (int round = 1; warmupClaims > 0 && round <= warmupRounds; round++) {
                out.printf("[bench] warm-up round %d of %d ...%n", round, warmupRounds);
                warmupRound(round);
                deleteWarmup(warmupNamespaces(round), "warm-up round " + round);
            }
            // Once more over every round: the controller can still act on a claim or pool of an
            // earlier round from a cache that has not yet seen its deletion (seen in
            // ControllerBenchmarkIT: a cold Sandbox and a pool member in round 1's namespace,
            // created during round 2).
            List<String> allRounds = new ArrayList<>();
            for (int round = 1; warmupClaims > 0 && round <= warmupRounds; round++) {
                allRounds.addAll(warmupNamespaces(round));
            }
            deleteWarmup(allRounds, "the warm-up");
            // The measured bursts start from caches that hold none of the warm-up's objects, so
            // the warm-up's size and rounds change only how far the JIT got.
            result.put("sandboxes_at_first_burst", store.snapshot(sandboxesKind).size());
            for (String type : launchTypes) {
                result.put(type, launchType(type, out));
            }
            result.put("double_adoptions_whole_run", tracker.doubleAdoptions());
            // Warm-up included: a full collection between the measured bursts misses their p99 but
            // not this (the serial collector's, every 40-50 s of warm-up, took 169-294 ms).
            GcPauses wholeRun = GcPauses.parse(controller.metrics());
            result.put("gc_pauses_whole_run", wholeRun.json());
            out.printf(Locale.ROOT, "%ncontroller GC pauses, whole run: %s%n", wholeRun.json());
            Files.writeString(
                    json,
                    new GsonBuilder()
                            .setPrettyPrinting()
                            .serializeSpecialFloatingPointValues()
                            .create()
                            .toJson(result),
                    StandardCharsets.UTF_8);
            out.println("JSON written to " + json);
            return 0;
        } finally {
            if (controller != null) {
                controller.close();
            }
            api.close();
        }
    }

    private Map<String, Object> method() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(
                "api",
                "in-process stand-in (io.sandboxd.controller.standin): Netty HTTP/1.1 server, one thread per request, "
                        + "in-memory store with one resourceVersion sequence, optimistic locking, JSON/merge patch, status subresources, "
                        + "WebSocket watches (one event per message, as fabric8 watches a real API server) replayed from a "
                        + "resourceVersion; its service time per request is reported");
        m.put("api_java", ClientJvm.describe());
        m.put("managed_fields", managedFields);
        m.put("pod_defaults", podDefaults);
        m.put("watches_opened", Map.of("websocket", api.webSocketWatches(), "http", api.httpWatches()));
        m.put(
                "kubelet",
                "in the stand-in: binds each new Pod and reports it Running+Ready after " + podStartDelayMs + " ms");
        m.put("controller", "java " + jvmOpts + " -jar " + jar + " --no-leader-elect " + controllerArgs);
        m.put("claims_per_burst", claims);
        m.put("paced_rate_per_second", rate);
        m.put("warmup_claims", warmupClaims);
        m.put("warmup_rounds", warmupRounds);
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        m.put("machine_stalls", machineStalls.method());
        m.put(
                "load_average_at_start",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        return m;
    }

    private static List<String> warmupNamespaces(int round) {
        return List.of("warmup-" + round, "warmup-cold-" + round);
    }

    private void warmupRound(int round) throws Exception {
        List<String> namespaces = warmupNamespaces(round);
        String warm = namespaces.get(0);
        String cold = namespaces.get(1);
        createPool(warm, warmupClaims);
        awaitQuiet("warm-up pool Ready", () -> readyReplicas(warm) == warmupClaims);
        burst(warm, "w", warmupClaims, rate, () -> readyReplicas(warm) == warmupClaims);
        createPool(cold, 0);
        burst(cold, "c", warmupClaims, 0, () -> true);
    }

    /**
     * Deletes warm-up objects as a cluster's garbage collector would once their claims are gone,
     * sweep after sweep: the controller may still create a pool member or a Pod from a cache that
     * has not yet seen its owner's deletion (on an API server the collector deletes those too).
     */
    private void deleteWarmup(List<String> namespaces, String what) throws InterruptedException {
        for (int sweep = 1; deleteAllIn(namespaces) > 0; sweep++) {
            if (sweep == MAX_DELETE_SWEEPS) {
                throw new IllegalStateException(
                        what + " still had objects after " + MAX_DELETE_SWEEPS + " deletion sweeps");
            }
            awaitQuiet(what + " deleted", () -> true);
        }
    }

    /** Deletes every claim, pool, template, Sandbox, Pod and Service in the namespaces; returns how many. */
    private int deleteAllIn(List<String> namespaces) {
        int deleted = 0;
        for (String plural :
                List.of("sandboxclaims", "sandboxwarmpools", "sandboxtemplates", "sandboxes", "pods", "services")) {
            Kind kind = store.kindOf(plural);
            for (var o : List.copyOf(store.snapshot(kind))) {
                var md = o.path("metadata");
                String ns = md.path("namespace").asString("");
                if (namespaces.contains(ns)) {
                    store.delete(kind, ns, md.path("name").asString(""));
                    deleted++;
                }
            }
        }
        return deleted;
    }

    private Map<String, Object> launchType(String type, PrintStream out) throws Exception {
        boolean warm = type.equals("warm");
        String ns = "bench-" + type;
        int pool = warm ? claims : 0;
        createPool(ns, pool);
        BooleanSupplier refilled = () -> readyReplicas(ns) == pool;
        awaitQuiet(ns + " pool Ready", refilled);
        out.printf("[bench] %s: paced burst of %d claims at %.0f/s ...%n", type, claims, rate);
        Phase paced = burst(ns, "p", claims, rate, refilled);
        out.printf("[bench] %s: flood of %d claims at once ...%n", type, claims);
        Phase flood = burst(ns, "f", claims, 0, refilled);
        Map<String, Object> m = figures(paced, flood);
        print(out, type, paced, flood, m);
        return m;
    }

    /** One burst's raw material. */
    private static final class Phase {
        BurstFigures figures;
        /** The controller's CPU at the burst's first claim. */
        ControllerProcess.Cpu cpuStart;

        double cpuBoundMs;
        /** Of cpuBoundMs, the system time: system calls, context switches and page faults. */
        double systemCpuBoundMs;
        /** cpuBoundMs by what the threads do ({@link ThreadCpu}). */
        Map<String, Double> cpuBoundMsByThreads;
        /** Until all were bound, the time the controller's threads waited, runnable, for a CPU. */
        double runQueueBoundMs;
        /** Until all were bound, the times the controller's threads were put on a CPU, by group. */
        Map<String, Long> timeslicesBoundByThreads;
        /** Until all were bound, the controller's GC pauses. */
        GcPauses gcPausesBound;
        /** Until all were bound, this JVM's CPU: the stand-in, its kubelet, creating and tracking claims. */
        double benchCpuBoundMs;
        /** Until all were bound, this JVM's GC pauses (the stand-in's). */
        Map<String, Object> benchGcPausesBound;
        /** Until all were bound, the machine's stalls ({@link MachineStalls}), or why they were not measured. */
        Map<String, Object> machineStallsBound;

        double quietCpuMs;
        /** Reconciles per controller from the burst's start until settled: count and seconds. */
        Map<String, double[]> reconciles;

        double peakRssMiB;
        double peakHeapMiB;
    }

    /**
     * One burst; its window (requests, CPU until settled) ends once {@code settled} holds (the pool
     * refilled) and the controller has sent nothing for a second.
     */
    private Phase burst(String ns, String prefix, int n, double perSecond, BooleanSupplier settled) throws Exception {
        Phase p = new Phase();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            names.add(prefix + "-" + i);
        }
        double[] peak = {0, 0};
        java.util.concurrent.atomic.AtomicBoolean sampling = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread sampler = new Thread(
                () -> {
                    // RSS from /proc every 250 ms; the heap from the controller's /metrics once a second
                    // and at the end: each scrape costs the controller CPU that the claims are charged
                    // with (4 scrapes a second were 3.8% of its CPU samples in a warm burst; Prometheus
                    // scrapes every 15-30 s).
                    for (long tick = 0; ; tick++) {
                        boolean last = !sampling.get();
                        peak[0] = Math.max(peak[0], controller.rssAndPeakMiB()[0]);
                        if (tick % 4 == 0 || last) peak[1] = Math.max(peak[1], controller.heapUsedMiB());
                        if (last) return;
                        try {
                            Thread.sleep(250);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "controller-sampler");
        sampler.setDaemon(true);
        sampler.start();
        int before = api.requests().size();
        String metricsAtStart = controller.metrics();
        Map<String, double[]> reconcilesAtStart = ControllerProcess.reconcilesIn(metricsAtStart);
        GcPauses gcAtStart = GcPauses.parse(metricsAtStart);
        Map<Long, ThreadCpu.Sample> threadsAtStart = ThreadCpu.read(controller.pid());
        p.cpuStart = controller.cpu();
        long benchCpuStart = BENCH_OS.getProcessCpuTime();
        long start = System.nanoTime();
        try (OwnGcPauses benchPauses = new OwnGcPauses()) {
            for (int i = 0; i < n; i++) {
                if (perSecond > 0) {
                    long due = start + (long) (i * 1e9 / perSecond);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                }
                SandboxClaim c = new SandboxClaim();
                c.getMetadata().setName(names.get(i));
                c.getMetadata().setNamespace(ns);
                c.getSpec().setWarmPoolRef(new Ref("pool"));
                store.create(claimsKind, ns, ObjectStore.fromModel(c));
            }
            awaitUntil(n + " claims bound in " + ns, () -> names.stream()
                    .allMatch(x -> tracker.boundAt.containsKey(ns + "/" + x)));
            ControllerProcess.Cpu cpuAtBound = controller.cpu();
            p.cpuBoundMs = cpuAtBound.totalMs() - p.cpuStart.totalMs();
            p.systemCpuBoundMs = cpuAtBound.systemMs() - p.cpuStart.systemMs();
            p.benchCpuBoundMs = (BENCH_OS.getProcessCpuTime() - benchCpuStart) / 1e6;
            p.benchGcPausesBound = benchPauses.json();
        }
        long boundNanos = System.nanoTime();
        Map<Long, ThreadCpu.Sample> threadsAtBound = ThreadCpu.read(controller.pid());
        p.cpuBoundMsByThreads = ThreadCpu.millisByGroup(
                threadsAtStart, threadsAtBound, p.cpuBoundMs, ControllerProcess.TICKS_PER_SECOND);
        p.runQueueBoundMs = ThreadCpu.runQueueMillis(threadsAtStart, threadsAtBound);
        p.timeslicesBoundByThreads = ThreadCpu.timeslicesByGroup(threadsAtStart, threadsAtBound);
        p.gcPausesBound = GcPauses.parse(controller.metrics()).since(gcAtStart);
        awaitQuiet(ns + " settled", settled);
        sampling.set(false);
        sampler.join();
        p.peakRssMiB = Math.max(peak[0], controller.rssAndPeakMiB()[0]);
        p.peakHeapMiB = peak[1];
        List<Request> all = api.requests();
        List<Request> phase = all.subList(before, all.size()).stream()
                .filter(r -> r.arrivedNanos() >= start)
                .toList();
        p.figures = new BurstFigures(ns + "/" + prefix, ns, names, tracker, phase, start);
        p.machineStallsBound = machineStalls.json(start, boundNanos, p.figures.latencies);
        p.quietCpuMs = controller.cpu().totalMs() - p.cpuStart.totalMs();
        p.reconciles = new TreeMap<>();
        ControllerProcess.reconcilesIn(controller.metrics()).forEach((name, now) -> {
            double[] was = reconcilesAtStart.getOrDefault(name, new double[2]);
            p.reconciles.put(name, new double[] {now[0] - was[0], now[1] - was[1]});
        });
        return p;
    }

    private Map<String, Object> figures(Phase paced, Phase flood) {
        BurstFigures f = paced.figures;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("claims_per_second", BurstFigures.round(flood.figures.claimsPerSecond()));
        m.put("writes_per_claim", BurstFigures.round(f.claimWritesPerClaim));
        m.put("writes_per_claim_all_controllers", BurstFigures.round(f.writesPerClaim));
        m.put("uncached_reads_per_claim", BurstFigures.round(f.uncachedReadsPerClaim));
        m.put("controller_latency_ms", f.latencyJson(f.totals()));
        m.put("controller_latency_leg1_ms", f.latencyJson(f.legs(true)));
        m.put("controller_latency_leg2_ms", f.latencyJson(f.legs(false)));
        m.put("cpu_ms_per_claim", BurstFigures.round(paced.cpuBoundMs / f.claims));
        m.put("cpu_ms_per_claim_until_settled", BurstFigures.round(paced.quietCpuMs / f.claims));
        m.put("system_cpu_ms_per_claim", BurstFigures.round(paced.systemCpuBoundMs / f.claims));
        m.put("cpu_ms_per_claim_by_threads", perClaim(paced.cpuBoundMsByThreads, f.claims));
        m.put("runqueue_wait_ms_per_claim", BurstFigures.round(paced.runQueueBoundMs / f.claims));
        m.put("timeslices_per_claim_by_threads", perClaim(paced.timeslicesBoundByThreads, f.claims));
        m.put("gc_pauses", paced.gcPausesBound.json());
        m.put("bench_jvm_cpu_ms_per_claim", BurstFigures.round(paced.benchCpuBoundMs / f.claims));
        m.put("bench_jvm_gc_pauses", paced.benchGcPausesBound);
        m.put("machine_stalls", paced.machineStallsBound);
        // How often each controller reconciled per claim until settled, and the mean reconcile's
        // wall time: a count that does not swing with the machine's load, unlike the CPU figures.
        Map<String, Double> reconciles = new LinkedHashMap<>();
        Map<String, Double> reconcileMs = new LinkedHashMap<>();
        paced.reconciles.forEach((name, r) -> {
            reconciles.put(name, r[0] / f.claims);
            reconcileMs.put(name, r[0] == 0 ? 0 : r[1] * 1000 / r[0]);
        });
        m.put("reconciles_per_claim_until_settled", round(reconciles));
        m.put("reconcile_mean_ms", round(reconcileMs));
        m.put("heap_used_mib_peak", BurstFigures.round(Math.max(paced.peakHeapMiB, flood.peakHeapMiB)));
        m.put("rss_mib_peak", BurstFigures.round(Math.max(paced.peakRssMiB, flood.peakRssMiB)));
        m.put("double_adoptions", tracker.doubleAdoptions());
        m.put("rebound_claims", f.rebinds + flood.figures.rebinds);
        m.put("bound", f.bound + flood.figures.bound);
        m.put("warm", f.warm + flood.figures.warm);
        m.put("claims", f.claims + flood.figures.claims);
        m.put("requests_per_claim_by_kind", round(f.requestsPerClaimByKind));
        m.put("api_service_ms", f.latencyJson(f.apiServiceMs));
        m.put("api_max_in_flight", f.apiMaxInFlight);
        Map<String, Object> fl = new LinkedHashMap<>();
        fl.put("seconds_to_all_bound", BurstFigures.round(flood.figures.seconds));
        fl.put("controller_latency_ms", flood.figures.latencyJson(flood.figures.totals()));
        fl.put("writes_per_claim", BurstFigures.round(flood.figures.claimWritesPerClaim));
        fl.put("uncached_reads_per_claim", BurstFigures.round(flood.figures.uncachedReadsPerClaim));
        fl.put("cpu_ms_per_claim", BurstFigures.round(flood.cpuBoundMs / flood.figures.claims));
        fl.put("cpu_ms_per_claim_until_settled", BurstFigures.round(flood.quietCpuMs / flood.figures.claims));
        fl.put("api_service_ms", flood.figures.latencyJson(flood.figures.apiServiceMs));
        fl.put("api_max_in_flight", flood.figures.apiMaxInFlight);
        m.put("flood", fl);
        m.put("paced_seconds_to_all_bound", BurstFigures.round(f.seconds));
        return m;
    }

    /** Each value divided by the burst's claims, rounded as every figure is. */
    private static Map<String, Double> perClaim(Map<String, ? extends Number> m, int claims) {
        Map<String, Double> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, BurstFigures.round(v.doubleValue() / claims)));
        return out;
    }

    private static Map<String, Double> round(Map<String, Double> m) {
        Map<String, Double> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, BurstFigures.round(v)));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void print(PrintStream out, String type, Phase paced, Phase flood, Map<String, Object> m) {
        Map<String, Object> lat = (Map<String, Object>) m.get("controller_latency_ms");
        Map<String, Object> api = (Map<String, Object>) m.get("api_service_ms");
        out.printf(Locale.ROOT, "%n%s claims (%d per burst)%n", type, paced.figures.claims);
        out.printf(Locale.ROOT, "  %-44s %10s%n", "figure", "value");
        row(out, "bound/s (flood, created at once)", m.get("claims_per_second"));
        row(out, "writes per claim (claim path)", m.get("writes_per_claim"));
        row(out, "writes per claim (all controllers)", m.get("writes_per_claim_all_controllers"));
        row(out, "uncached reads per claim", m.get("uncached_reads_per_claim"));
        row(out, "controller latency p50 ms (paced)", lat.get("p50"));
        row(out, "controller latency p99 ms (paced)", lat.get("p99"));
        row(out, "CPU ms per claim (to all bound)", m.get("cpu_ms_per_claim"));
        row(out, "CPU ms per claim (to settled)", m.get("cpu_ms_per_claim_until_settled"));
        row(out, "  of it system time, to all bound", m.get("system_cpu_ms_per_claim"));
        out.printf(Locale.ROOT, "  CPU ms per claim by threads: %s%n", m.get("cpu_ms_per_claim_by_threads"));
        row(out, "ms per claim waiting for a CPU (to all bound)", m.get("runqueue_wait_ms_per_claim"));
        out.printf(
                Locale.ROOT,
                "  times on a CPU per claim by threads (to all bound): %s%n",
                m.get("timeslices_per_claim_by_threads"));
        out.printf(Locale.ROOT, "  GC pauses (paced, to all bound): %s%n", m.get("gc_pauses"));
        row(out, "bench JVM (stand-in) CPU ms per claim", m.get("bench_jvm_cpu_ms_per_claim"));
        out.printf(
                Locale.ROOT,
                "  bench JVM (stand-in) GC pauses (paced, to all bound): %s%n",
                m.get("bench_jvm_gc_pauses"));
        out.printf(Locale.ROOT, "  machine stalls (paced, to all bound): %s%n", m.get("machine_stalls"));
        out.printf(
                Locale.ROOT, "  reconciles per claim (to settled): %s%n", m.get("reconciles_per_claim_until_settled"));
        out.printf(Locale.ROOT, "  mean reconcile ms: %s%n", m.get("reconcile_mean_ms"));
        row(out, "heap used MiB (peak)", m.get("heap_used_mib_peak"));
        row(out, "RSS MiB (peak)", m.get("rss_mib_peak"));
        row(out, "double adoptions", m.get("double_adoptions"));
        row(out, "API service ms p50 / p99", api.get("p50") + " / " + api.get("p99"));
        out.printf(Locale.ROOT, "  requests per claim: %s%n", m.get("requests_per_claim_by_kind"));
    }

    private static void row(PrintStream out, String k, Object v) {
        out.printf(Locale.ROOT, "  %-44s %10s%n", k, v);
    }

    // ---- objects and waiting ---------------------------------------------------------------

    private void createPool(String ns, int replicas) {
        SandboxTemplate t = new SandboxTemplate();
        t.getMetadata().setName("tpl");
        t.getMetadata().setNamespace(ns);
        var pod = new io.fabric8.kubernetes.api.model.PodTemplateSpec();
        pod.setSpec(new io.fabric8.kubernetes.api.model.PodSpecBuilder()
                .withContainers(new io.fabric8.kubernetes.api.model.ContainerBuilder()
                        .withName("main")
                        .withImage("sandboxd:bench")
                        .build())
                .build());
        t.getSpec().setPodTemplate(pod);
        store.create(store.kindOf("sandboxtemplates"), ns, ObjectStore.fromModel(t));
        SandboxWarmPool p = new SandboxWarmPool();
        p.getMetadata().setName("pool");
        p.getMetadata().setNamespace(ns);
        p.getSpec().setReplicas(replicas);
        p.getSpec().setSandboxTemplateRef(new Ref("tpl"));
        store.create(poolsKind, ns, ObjectStore.fromModel(p));
    }

    private int readyReplicas(String ns) {
        try {
            var st = store.get(poolsKind, ns, "pool").path("status");
            return st.path("readyReplicas").asInt(-1) == st.path("replicas").asInt(-2)
                    ? st.path("readyReplicas").asInt()
                    : -1;
        } catch (ObjectStore.ApiException e) {
            return -1;
        }
    }

    /** Until the condition holds and the controller sent no request (watches aside) for a second. */
    private void awaitQuiet(String what, BooleanSupplier cond) throws InterruptedException {
        awaitUntil(what, () -> {
            if (!cond.getAsBoolean()) {
                return false;
            }
            return System.nanoTime() - api.lastAnsweredNanos() > 1_000_000_000L;
        });
    }

    private static void awaitUntil(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + PHASE_TIMEOUT.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    private static List<String> split(String s) {
        return s.isBlank() ? List.of() : Arrays.asList(s.trim().split("\\s+"));
    }
}
