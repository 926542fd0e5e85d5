package io.sandboxd.bench.footprint;

import com.google.gson.GsonBuilder;
import io.sandboxd.bench.DaemonStartup;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcessObserver;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code sandboxd-bench footprint}: cold starts of our daemon (the launcher script or the jar),
 * each timed from exec to {@code /v1/health} 200 and to the first Execute answered; 2 s later the
 * idle memory ({@code smaps_rollup}, and {@code smaps} summed by {@link Category}); then the
 * daemon's CPU per Execute for the first N calls and for N calls after a warm-up. Several
 * variants (JVM options, environment) are started in turn, round after round, so they see the
 * same machine. With {@code --target-address/--target-pid} another runtime that is already
 * running is measured the same way (idle memory, CPU per call), minus the starts.
 */
public final class FootprintBenchmark {
    static final String USAGE = """
            usage: sandboxd-bench footprint (--start-daemon LAUNCHER|JAR | --target-address HOST:PORT --target-pid PID)
                     [--variant NAME=SPEC]... [--jvm-opts "OPTS"] [--starts N] [--calls N] [--warm-calls N]
                     [--idle-ms MS] [--token T] [--json FILE] [--baseline FILE [--max-regression 3]]
                     [--floor jdk|netty|jetty|javalin|javalin-observed]... [--floors-jar JAR] [--jvm-options-file FILE]
                     [--class-counts 0|1] [--streams N]
              --start-daemon X    our daemon: a launcher script (./sandboxd) or a jar (with --jvm-opts)
              --variant N=SPEC    a configuration to compare (repeatable): SPEC is space-separated JVM options
                                  and KEY=VALUE environment variables, e.g. "serial=-XX:+UseSerialGC MALLOC_ARENA_MAX=2";
                                  default: one variant "default" with nothing added
              --starts N          cold starts per variant, after one discarded warm-up start (default 10)
              --calls N           Executes of /bin/true whose daemon CPU is measured, cold and warm (default 100)
              --warm-calls N      Executes between the cold and the warm measurement (default 1000)
              --idle-ms MS        pause after the first Execute before memory is read (default 2000)
              --target-address    another runtime's gRPC address, measured idle and per call (with --target-pid)
              --target-pid PID    that runtime's process (read from /proc; jcmd only if it is a JVM)
              --floor F           also start this framework floor in turn with the daemon (repeatable): a
                                  server of bench/target/sandboxd-floors.jar answering /v1/health (and the
                                  daemon's gRPC API, no-op, except jdk), on the daemon's JVM options with its
                                  own AppCDS archive recorded by a training run as ./sandboxd does (issue 22)
              --floors-jar JAR    the floors' jar (default: sandboxd-floors.jar beside the bench's jar)
              --jvm-options-file  the JVM options the floors run with (default: daemon/jvm.options beside
                                  the launcher script)
              --class-counts 1    one more start per variant with -Xlog:class+load: the classes loaded by
                                  the first health answer, how many from archives, per library (default 0)
              --streams N         after the CPU calls, N Start streams held open at once: VmRSS and
                                  Private_Dirty with all live (default 0: not measured)
              --baseline FILE     compare the first variant's guarded figures with a JSON written earlier (CI):
                                  first Execute / trivial Java start and cold / warm CPU may grow --max-regression
                                  times, idle Private_Dirty 1.25 times; measured once more before failing (exit 1)
            """;

    private final Options o;
    private final PrintStream out;
    /** The daemon JVM's java and options (from its command line), for the trivial-Java baseline. */
    private String daemonJava;

    private List<String> trivialOpts = List.of();
    private int started;
    private FloorLauncher floors;
    private final Map<String, ClassCounts> classCounts = new LinkedHashMap<>();

    private FootprintBenchmark(Options o, PrintStream out) {
        this.o = o;
        this.out = out;
    }

    public static int run(String[] args) {
        return run(args, System.out);
    }

    static int run(String[] args, PrintStream out) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("sandboxd-bench footprint: " + e.getMessage());
            System.err.print(USAGE);
            return 2;
        }
        try {
            Map<String, Object> report = new FootprintBenchmark(o, out).measure();
            int rc = 0;
            if (o.baseline != null) {
                rc = guard(o, out, report);
            }
            if (o.json != null) {
                Files.writeString(
                        o.json,
                        new GsonBuilder()
                                .setPrettyPrinting()
                                .serializeSpecialFloatingPointValues()
                                .create()
                                .toJson(report));
                out.println("JSON written to " + o.json);
            }
            return rc;
        } catch (Exception e) {
            e.printStackTrace(out);
            return 1;
        }
    }

    @SuppressWarnings("unchecked")
    private static int guard(Options o, PrintStream out, Map<String, Object> report) throws Exception {
        Map<String, Double> base = FootprintGuard.read(o.baseline);
        Map<String, Double> now = (Map<String, Double>) report.get("guard");
        List<String> problems = FootprintGuard.compare(now, base, o.maxRegression);
        if (!problems.isEmpty()) {
            // A noisy neighbour can slow one run; a real regression reproduces.
            out.println("Suspected footprint regression; measuring once more: " + problems);
            Map<String, Object> again = new FootprintBenchmark(o, out).measure();
            now = FootprintGuard.bestOf(now, (Map<String, Double>) again.get("guard"));
            report.put("guard", now);
            problems = FootprintGuard.compare(now, base, o.maxRegression);
        }
        if (!problems.isEmpty()) {
            out.println("FOOTPRINT GUARD FAILED (vs " + o.baseline + "):");
            problems.forEach(p -> out.println("  - " + p));
            return 1;
        }
        out.println("Footprint guard passed: " + now + " vs baseline " + base);
        return 0;
    }

    /** One cold start's figures. */
    record Sample(
            double healthMs,
            double startupCpuMs,
            double firstExecuteMs,
            ProcFigures.Memory idle,
            Map<String, SmapsBreakdown.Usage> breakdown,
            long metaspaceCommittedBytes,
            double coldCpuMsPerCall,
            double warmCpuMsPerCall,
            int calls,
            ProcFigures.Memory liveStreams) {
        /**
         * Cold over warm CPU per call; a warm run that used less than one clock tick counts as one
         * tick (a quiet machine can run a few dozen warm calls within one 10 ms tick).
         */
        double coldOverWarm() {
            double tickPerCall = ProcFigures.MS_PER_TICK / calls;
            return Math.max(coldCpuMsPerCall, tickPerCall) / Math.max(warmCpuMsPerCall, tickPerCall);
        }
    }

    private Map<String, Object> measure() throws Exception {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("load_before", loadAverage());
        report.put("cpus", Runtime.getRuntime().availableProcessors());
        report.put("calls", o.calls);
        report.put("warm_calls", o.warmCalls);
        report.put("idle_ms", o.idleMs);
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        List<Sample> target = new ArrayList<>();
        List<Double> trivial = new ArrayList<>();
        Path work = Files.createTempDirectory("sandboxd-footprint-");
        try {
            if (o.launch != null) {
                // One start that is not counted: it may record the launcher's class-data archive,
                // and it brings the jar and the JDK into the page cache for every variant alike.
                out.printf("[footprint] warm-up start (not counted)%n");
                startOnce(o.variants.get(0), work);
                o.variants.forEach(v -> samples.put(v.name(), new ArrayList<>()));
                prepareFloors(work);
            }
            for (int round = 0; round < o.rounds(); round++) {
                if (o.launch != null) {
                    // Rotate the order each round so no variant always follows the same one.
                    for (int k = 0; k < o.variants.size(); k++) {
                        Variant v = o.variants.get((k + round) % o.variants.size());
                        Sample s = startWithRetry(v, work);
                        samples.get(v.name()).add(s);
                        out.printf(
                                "[footprint] %s #%d: health %.0f ms (CPU %.0f ms), first Execute %.0f ms, idle Private_Dirty %.1f MB, RSS %.1f MB%n",
                                v.name(),
                                round + 1,
                                s.healthMs(),
                                s.startupCpuMs(),
                                s.firstExecuteMs(),
                                mb(s.idle().privateDirtyBytes()),
                                mb(s.idle().vmRssBytes()));
                    }
                }
                if (o.targetAddress != null) {
                    target.add(measureRunning(o.targetAddress, o.targetPid));
                }
                if (daemonJava != null) {
                    // The same-run baseline of the start-up ratio: the JVM alone, same options.
                    trivial.add(DaemonStartup.trivialJava(daemonJava, trivialOpts, round == 0 ? 1 : 0, 1)[0]);
                }
            }
            if (o.launch != null && o.classCountStarts > 0) {
                for (Variant v : o.variants) {
                    classCounts.put(v.name(), countClasses(v, work));
                }
            }
        } finally {
            deleteTree(work);
        }
        report.put("load_after", loadAverage());
        Map<String, Object> variants = new LinkedHashMap<>();
        samples.forEach((name, list) -> variants.put(name, summary(list, true)));
        report.put("variants", variants);
        if (!trivial.isEmpty()) {
            double trivialMs =
                    median(trivial.stream().mapToDouble(Double::doubleValue).toArray());
            report.put("trivial_java_ms", trivialMs);
            report.put("trivial_java_options", trivialOpts);
            List<Sample> first = samples.get(o.variants.get(0).name());
            report.put(
                    "guard",
                    FootprintGuard.figures(
                            median(first.stream()
                                    .mapToDouble(Sample::firstExecuteMs)
                                    .toArray()),
                            trivialMs,
                            median(first.stream()
                                    .mapToDouble(x -> x.coldOverWarm())
                                    .toArray()),
                            median(first.stream()
                                    .mapToDouble(x -> mb(x.idle().privateDirtyBytes()))
                                    .toArray())));
        }
        if (!target.isEmpty()) {
            report.put("target", summary(target, false));
        }
        if (!classCounts.isEmpty()) {
            report.put("classes_at_first_health", classCounts);
        }
        report.put("samples", samples);
        print(report, samples, target);
        return report;
    }

    /**
     * A start that fails is tried once more (a loaded machine can time one out, and one lost
     * start must not throw away every figure measured so far); a second failure ends the run.
     */
    private Sample startWithRetry(Variant v, Path work) throws Exception {
        try {
            return startOnce(v, work);
        } catch (Exception e) {
            out.printf("[footprint] %s: start failed, trying once more: %s%n", v.name(), firstLine(e));
            return startOnce(v, work);
        }
    }

    private static String firstLine(Exception e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /**
     * Each floor's class-data archive, recorded with the java our daemon's warm-up start ran on,
     * then one start of each that is not counted (as the daemon's warm-up start).
     */
    private void prepareFloors(Path work) throws Exception {
        if (o.floors.isEmpty()) {
            return;
        }
        Path jar = o.floorsJar != null ? o.floorsJar : defaultFloorsJar();
        floors = new FloorLauncher(Path.of(daemonJava), jar, o.jvmOptionsFile);
        for (Floor f : o.floors) {
            out.printf(
                    "[footprint] %s: recording its class-data archive, then a warm-up start (not counted)%n",
                    f.variantName());
            floors.record(f, work);
            startOnce(Variant.of(f), work);
        }
    }

    /** sandboxd-floors.jar beside the jar (or classes directory's target/) the bench runs from. */
    private static Path defaultFloorsJar() throws java.net.URISyntaxException {
        Path self = Path.of(FootprintBenchmark.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        return self.getParent().resolve("sandboxd-floors.jar");
    }

    /** Starts {@code v} and waits for its first {@code /v1/health} 200; {@code extra} JVM options last. */
    private RunningDaemon launch(Variant v, Path work, List<String> extra) throws Exception {
        Path root = Files.createTempDirectory(work, "root-");
        DaemonSpec spec;
        if (v.floor() != null) {
            spec = floors.spec(v.floor(), concat(v.jvmOptions(), extra));
        } else {
            spec = (o.launch.endsWith(".jar")
                            ? DaemonSpec.jar(Path.of(o.launch))
                            : DaemonSpec.launcherScript(Path.of(o.launch)))
                    .withInheritedSandboxdEnv(true)
                    .withJvmOptions(concat(concat(o.jarOpts(), v.jvmOptions()), extra));
            if (o.token != null) {
                spec = spec.withAuthToken(o.token);
            }
        }
        spec = spec.withRootDir(root)
                .withLogs(work, "daemon-" + ++started) // each start's own log, for its errors
                .withReadyTimeout(Duration.ofSeconds(180));
        for (Map.Entry<String, String> e : v.env().entrySet()) {
            spec = spec.withEnv(e.getKey(), e.getValue());
        }
        return spec.start();
    }

    private Sample startOnce(Variant v, Path work) throws Exception {
        RunningDaemon d = launch(v, work, List.of());
        try {
            // read first: the JVM's CPU up to (and including) its first health answer
            double startupCpuMs = ProcFigures.cpuTicks(d.jvmPid()) * ProcFigures.MS_PER_TICK;
            double healthMs = d.readyAfter().toNanos() / 1e6;
            if (v.floor() == null && daemonJava == null) {
                List<String> cmd = new ProcessObserver(d.jvmPid()).cmdline();
                trivialOpts = DaemonStartup.jvmOptionsForTrivialProgram(cmd);
                daemonJava = cmd.get(0);
            }
            if (!v.speaksGrpc()) {
                Thread.sleep(o.idleMs);
                return idle(d.jvmPid(), healthMs, startupCpuMs);
            }
            try (SandboxdClient c = client(d.grpcTarget(), v.floor() == null ? o.token : null)) {
                c.execute("/bin/true");
                double firstMs = (System.nanoTime() - d.launchedNanos()) / 1e6;
                Sample s = idleAndCpu(c, d.jvmPid(), healthMs, startupCpuMs, firstMs);
                if (o.streams > 0) {
                    ProcFigures.Memory live = LiveStreams.measure(
                            d.grpcTarget(), v.floor() == null ? o.token : null, d.jvmPid(), o.streams);
                    s = withLiveStreams(s, live);
                }
                return s;
            }
        } finally {
            d.stop(Duration.ofSeconds(5));
            d.close();
        }
    }

    private static Sample withLiveStreams(Sample s, ProcFigures.Memory live) {
        return new Sample(
                s.healthMs(),
                s.startupCpuMs(),
                s.firstExecuteMs(),
                s.idle(),
                s.breakdown(),
                s.metaspaceCommittedBytes(),
                s.coldCpuMsPerCall(),
                s.warmCpuMsPerCall(),
                s.calls(),
                live);
    }

    /** One more start with {@code -Xlog:class+load}: the classes loaded by the first health answer. */
    private ClassCounts countClasses(Variant v, Path work) throws Exception {
        Path log = work.resolve("classes-" + ++started + ".log");
        RunningDaemon d = launch(v, work, List.of("-Xlog:class+load=info:file=" + log));
        try {
            ClassCounts c = ClassCounts.parse(Files.readString(log, StandardCharsets.ISO_8859_1));
            out.printf(
                    "[footprint] %s: %d classes loaded by the first health answer, %d from archives%n",
                    v.name(), c.total(), c.fromArchive());
            return c;
        } finally {
            d.stop(Duration.ofSeconds(5));
            d.close();
        }
    }

    private Sample measureRunning(String address, long pid) throws Exception {
        try (SandboxdClient c = client(address, o.token)) {
            c.execute("/bin/true");
            return idleAndCpu(c, pid, Double.NaN, Double.NaN, Double.NaN);
        }
    }

    private Sample idleAndCpu(SandboxdClient c, long pid, double healthMs, double startupCpuMs, double firstMs)
            throws Exception {
        Thread.sleep(o.idleMs);
        Sample idle = idle(pid, healthMs, startupCpuMs);
        double cold = cpuPerCall(c, pid, o.calls);
        for (int i = 0; i < o.warmCalls; i++) {
            c.execute("/bin/true");
        }
        double warm = cpuPerCall(c, pid, o.calls);
        return new Sample(
                healthMs,
                startupCpuMs,
                firstMs,
                idle.idle(),
                idle.breakdown(),
                idle.metaspaceCommittedBytes(),
                cold,
                warm,
                o.calls,
                null);
    }

    /** The memory figures now (no calls made: CPU per call unknown). */
    private static Sample idle(long pid, double healthMs, double startupCpuMs) throws IOException {
        // /proc first: the jcmd attach that names the JVM's ranges adds a thread of its own.
        ProcFigures.Memory idle = ProcFigures.memory(pid);
        String smaps = ProcFigures.smaps(pid);
        JvmRegions regions = JvmRegions.of(pid, jcmd());
        return new Sample(
                healthMs,
                startupCpuMs,
                Double.NaN,
                idle,
                SmapsBreakdown.of(smaps, regions),
                regions.metaspaceCommittedBytes().orElse(-1),
                Double.NaN,
                Double.NaN,
                1,
                null);
    }

    private static double cpuPerCall(SandboxdClient c, long pid, int n) throws IOException {
        long before = ProcFigures.cpuTicks(pid);
        for (int i = 0; i < n; i++) {
            c.execute("/bin/true");
        }
        return (ProcFigures.cpuTicks(pid) - before) * ProcFigures.MS_PER_TICK / n;
    }

    private static SandboxdClient client(String grpcTarget, String token) {
        return SandboxdClient.builder()
                .grpcTarget(grpcTarget)
                .token(token)
                .callTimeout(Duration.ofSeconds(30))
                .build();
    }

    private static Path jcmd() {
        Path home = Path.of(System.getProperty("java.home"));
        for (Path p : new Path[] {home.resolve("bin/jcmd"), home.resolveSibling("bin/jcmd")}) {
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return Path.of("jcmd");
    }

    /** Medians (p50) and p90 of every figure over the samples. */
    static Map<String, Object> summary(List<Sample> list, boolean starts) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("n", list.size());
        if (starts) {
            s.put("health_ms", pcts(list.stream().mapToDouble(Sample::healthMs).toArray()));
            s.put(
                    "startup_cpu_ms",
                    pcts(list.stream().mapToDouble(Sample::startupCpuMs).toArray()));
            s.put(
                    "first_execute_ms",
                    pcts(list.stream().mapToDouble(Sample::firstExecuteMs).toArray()));
        }
        s.put(
                "idle_rss_mb",
                pcts(list.stream().mapToDouble(x -> mb(x.idle().rssBytes())).toArray()));
        s.put(
                "idle_vmrss_mb",
                pcts(list.stream().mapToDouble(x -> mb(x.idle().vmRssBytes())).toArray()));
        s.put(
                "idle_pss_mb",
                pcts(list.stream().mapToDouble(x -> mb(x.idle().pssBytes())).toArray()));
        s.put(
                "idle_private_dirty_mb",
                pcts(list.stream()
                        .mapToDouble(x -> mb(x.idle().privateDirtyBytes()))
                        .toArray()));
        s.put(
                "idle_threads",
                pcts(list.stream().mapToDouble(x -> x.idle().threads()).toArray()));
        s.put(
                "metaspace_committed_mb",
                pcts(list.stream()
                        .mapToDouble(x -> mb(x.metaspaceCommittedBytes()))
                        .toArray()));
        Map<String, Object> by = new LinkedHashMap<>();
        for (String c : Category.ALL) {
            Map<String, Object> u = new LinkedHashMap<>();
            u.put(
                    "rss_mb",
                    median(list.stream()
                            .mapToDouble(x -> mb(x.breakdown().get(c).rssBytes()))
                            .toArray()));
            u.put(
                    "private_dirty_mb",
                    median(list.stream()
                            .mapToDouble(x -> mb(x.breakdown().get(c).privateDirtyBytes()))
                            .toArray()));
            by.put(c, u);
        }
        s.put("smaps_breakdown_p50", by);
        s.put(
                "cold_cpu_ms_per_call",
                pcts(list.stream().mapToDouble(Sample::coldCpuMsPerCall).toArray()));
        s.put(
                "warm_cpu_ms_per_call",
                pcts(list.stream().mapToDouble(Sample::warmCpuMsPerCall).toArray()));
        s.put(
                "cold_over_warm_cpu",
                median(list.stream().mapToDouble(x -> x.coldOverWarm()).toArray()));
        if (list.stream().anyMatch(x -> x.liveStreams() != null)) {
            s.put(
                    "streams_vmrss_mb",
                    pcts(list.stream()
                            .filter(x -> x.liveStreams() != null)
                            .mapToDouble(x -> mb(x.liveStreams().vmRssBytes()))
                            .toArray()));
            s.put(
                    "streams_private_dirty_mb",
                    pcts(list.stream()
                            .filter(x -> x.liveStreams() != null)
                            .mapToDouble(x -> mb(x.liveStreams().privateDirtyBytes()))
                            .toArray()));
        }
        return s;
    }

    private static Map<String, Double> pcts(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("p50", rank(s, 0.5));
        m.put("p90", rank(s, 0.9));
        return m;
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return rank(s, 0.5);
    }

    private static double rank(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int idx = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }

    @SuppressWarnings("unchecked")
    private void print(Map<String, Object> report, Map<String, List<Sample>> samples, List<Sample> target) {
        out.printf(
                "%nfootprint (load %s -> %s, %s CPUs; CPU per call from /proc utime+stime, 10 ms ticks)%n",
                report.get("load_before"), report.get("load_after"), report.get("cpus"));
        Map<String, Object> all = new LinkedHashMap<>((Map<String, Object>) report.get("variants"));
        if (report.containsKey("target")) {
            all.put("target " + o.targetAddress, report.get("target"));
        }
        String[] rows = {
            "health_ms",
            "startup_cpu_ms",
            "first_execute_ms",
            "idle_vmrss_mb",
            "idle_private_dirty_mb",
            "idle_pss_mb",
            "idle_threads",
            "metaspace_committed_mb",
            "cold_cpu_ms_per_call",
            "warm_cpu_ms_per_call",
            "cold_over_warm_cpu",
            "streams_vmrss_mb",
            "streams_private_dirty_mb"
        };
        out.printf("%-40s", "figure (p50 / p90)");
        all.keySet().forEach(k -> out.printf(" %22s", k));
        out.println();
        for (String r : rows) {
            out.printf("%-40s", r);
            for (Object v : all.values()) {
                Object f = ((Map<String, Object>) v).get(r);
                out.printf(" %22s", format(f));
            }
            out.println();
        }
        out.println("idle smaps by mapping, p50 RSS / Private_Dirty MB:");
        for (String c : Category.ALL) {
            out.printf("  %-38s", c);
            for (Object v : all.values()) {
                Map<String, Object> u = ((Map<String, Map<String, Object>>)
                                ((Map<String, Object>) v).get("smaps_breakdown_p50"))
                        .get(c);
                out.printf(
                        " %22s",
                        String.format("%.1f / %.1f", (Double) u.get("rss_mb"), (Double) u.get("private_dirty_mb")));
            }
            out.println();
        }
        printClassCounts();
    }

    /** Classes at the first health answer per library: the union of each variant's 12 largest groups. */
    private void printClassCounts() {
        if (classCounts.isEmpty()) {
            return;
        }
        out.println("classes loaded by the first health answer (one -Xlog:class+load start each):");
        out.printf("  %-38s", "");
        classCounts.keySet().forEach(k -> out.printf(" %22s", k));
        out.println();
        out.printf("  %-38s", "total / from archives");
        classCounts.values().forEach(c -> out.printf(" %22s", c.total() + " / " + c.fromArchive()));
        out.println();
        java.util.Set<String> groups = new java.util.LinkedHashSet<>();
        classCounts
                .values()
                .forEach(c -> c.byGroup().keySet().stream().limit(12).forEach(groups::add));
        for (String g : groups) {
            out.printf("  %-38s", g);
            classCounts.values().forEach(c -> out.printf(" %22d", c.byGroup().getOrDefault(g, 0)));
            out.println();
        }
    }

    @SuppressWarnings("unchecked")
    private static String format(Object f) {
        if (f == null) {
            return "-";
        }
        if (f instanceof Map<?, ?> m) {
            return String.format(
                    "%.1f / %.1f", (Double) ((Map<String, Double>) m).get("p50"), ((Map<String, Double>) m).get("p90"));
        }
        return String.format("%.2f", (Double) f);
    }

    static double mb(long bytes) {
        return bytes / 1048576.0;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII)
                    .trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> l = new ArrayList<>(a);
        l.addAll(b);
        return l;
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(x);
            }
        }
    }
}
