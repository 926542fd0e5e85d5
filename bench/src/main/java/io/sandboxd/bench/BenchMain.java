package io.sandboxd.bench;

import io.sandboxd.bench.controller.ControllerBenchmark;
import io.sandboxd.bench.router.RouterBenchmark;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStatus;
import io.sandboxd.testkit.proc.ProcessObserver;
import io.sandboxd.testkit.proc.ResourceSampler;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The sandboxd benchmark: every figure is a median and p99 over repeated runs next to a baseline
 * measured in the same run on the same machine. Prints a table, optionally writes JSON and
 * compares with a committed baseline file (the CI regression guard).
 */
public final class BenchMain {
    private final BenchOptions o;
    private final List<Metric> metrics = new ArrayList<>();
    private final Map<String, String> failures = new LinkedHashMap<>();
    private final Map<String, Object> info = new LinkedHashMap<>();
    private RunningDaemon daemon;
    private long daemonJvm;
    private ResourceSampler sampler;
    private SpawnFloor floor;
    private Path work;

    private BenchMain(BenchOptions o) {
        this.o = o;
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("router")) {
            System.exit(RouterBenchmark.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("durable")) {
            System.exit(DurableBench.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("watch")) {
            System.exit(io.sandboxd.bench.watch.WatchBenchmark.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("code")) {
            try {
                System.exit(
                        io.sandboxd.bench.code.CodeBenchmark.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
            } catch (Exception e) {
                e.printStackTrace();
                System.exit(1);
            }
            return;
        }
        if (args.length > 0 && args[0].equals("archive")) {
            System.exit(
                    io.sandboxd.bench.archive.ArchiveBenchmark.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("footprint")) {
            System.exit(io.sandboxd.bench.footprint.FootprintBenchmark.run(
                    java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("listing")) {
            System.exit(
                    io.sandboxd.bench.listing.ListingBenchmark.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("controller")) {
            // Asked before the options are chosen: choosing them starts a java to probe for
            // Shenandoah, which the relaunched JVM need not do again.
            if (ClientJvm.mayRelaunch()) relaunchInClientJvm(args, ClientJvm.forApiStandIn());
            System.exit(ControllerBenchmark.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        BenchOptions o;
        try {
            o = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("sandboxd-bench: " + e.getMessage());
            }
            System.err.print(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        relaunchInClientJvm(args, ClientJvm.FOR_CLIENT);
        System.exit(run(o, System.out));
    }

    /** Exits with the benchmark's exit code once it has run in a {@link ClientJvm}, if it can. */
    private static void relaunchInClientJvm(String[] args, List<String> options) {
        if (ClientJvm.shouldRelaunch(options)) {
            try {
                System.exit(ClientJvm.relaunch(args, options));
            } catch (Exception e) {
                System.err.println("sandboxd-bench: could not start the client JVM (" + e
                        + "); measuring from this one as it was started");
            }
        }
    }

    /** Runs the benchmark; returns 1 when the baseline comparison found a regression or failure. */
    static int run(BenchOptions o, java.io.PrintStream out) {
        try {
            BenchMain b = new BenchMain(o);
            Report report = b.execute(out);
            report.print(out);
            if (o.json != null) {
                report.writeJson(o.json);
                out.println("JSON written to " + o.json);
            }
            if (o.baseline != null) {
                Map<String, Double> base = Report.readCosts(o.baseline);
                List<String> problems = report.compare(base, o.maxRegression);
                java.util.Set<String> again = report.sectionsToRemeasure(base, o.maxRegression);
                if (!problems.isEmpty() && !again.isEmpty()) {
                    // A noisy neighbour can triple one figure once; a real regression reproduces.
                    out.println("Suspected regression; measuring sections " + again + " once more: " + problems);
                    BenchOptions o2 = o.only(again);
                    Report second = new BenchMain(o2).execute(out);
                    second.print(out);
                    report = report.bestOf(second);
                    if (o.json != null) {
                        report.writeJson(o.json);
                    }
                    problems = report.compare(base, o.maxRegression);
                }
                if (!problems.isEmpty()) {
                    out.println("REGRESSION GUARD FAILED (max " + o.maxRegression + "x vs " + o.baseline + "):");
                    problems.forEach(p -> out.println("  - " + p));
                    return 1;
                }
                out.println("Regression guard passed: no guarded ratio worse than " + o.maxRegression + "x of "
                        + o.baseline);
            }
            return 0;
        } catch (Exception e) {
            e.printStackTrace(out);
            return 1;
        }
    }

    private Report execute(java.io.PrintStream out) throws Exception {
        boolean ownWork = o.workDir == null;
        work = ownWork ? Files.createTempDirectory("sandboxd-bench-") : Files.createDirectories(o.workDir);
        try {
            floor = SpawnFloor.prepare(work);
            info.put("spawn_floor_method", floor.method());
            info.put("cpus", Runtime.getRuntime().availableProcessors());
            info.put("client_java", ClientJvm.describe());
            info.put("quick", o.quick);
            String grpcTarget = o.grpc;
            String restBase = o.rest;
            if (o.startDaemon != null) {
                section(out, "startup", this::startOwnDaemon);
                if (daemon == null) {
                    throw new IllegalStateException("the daemon did not start: " + failures);
                }
                grpcTarget = daemon.grpcTarget();
                restBase = daemon.restBase();
                info.put("daemon_command", String.join(" ", commandLine(daemonJvm)));
                sampler = new ResourceSampler(daemonJvm);
            }
            info.put("grpc", grpcTarget);
            info.put("rest", String.valueOf(restBase));
            try (GrpcBench g = new GrpcBench(grpcTarget, restBase, o.token)) {
                RestBench r = new RestBench(restBase, o.token, g.client());
                if (o.only.contains("execute")) {
                    section(out, "execute", () -> executeSection(g));
                }
                if (o.only.contains("stream")) {
                    section(out, "stream", () -> streamSection(g));
                }
                if (o.only.contains("files")) {
                    section(out, "files", () -> filesSection(r));
                }
                if (o.only.contains("streams")) {
                    section(out, "streams", () -> streamsSection(g));
                }
                r.cleanup();
            }
            if (daemon != null) {
                section(out, "after", this::afterSection);
            }
        } finally {
            if (sampler != null) {
                sampler.close();
            }
            if (daemon != null) {
                stop(daemon);
            }
            if (ownWork) {
                deleteTree(work);
            }
        }
        return new Report(metrics, failures, info);
    }

    interface Section {
        void run() throws Exception;
    }

    private void section(java.io.PrintStream out, String name, Section s) {
        long t = System.nanoTime();
        out.printf("[bench] %s ...%n", name);
        out.flush();
        int before = metrics.size();
        try {
            s.run();
        } catch (Exception | AssertionError e) {
            failures.put(name, e.getClass().getSimpleName() + ": " + e.getMessage());
            out.printf("[bench] %s FAILED: %s%n", name, e);
        }
        for (int i = before; i < metrics.size(); i++) {
            metrics.get(i).section = name;
        }
        out.printf("[bench] %s done in %.1f s%n", name, (System.nanoTime() - t) / 1e9);
        out.flush();
    }

    private void startOwnDaemon() throws Exception {
        Path root = Files.createDirectories(work.resolve("root"));
        DaemonSpec spec = DaemonStartup.spec(o.startDaemon, o.jvmOpts, root, work, o.token);
        info.put("daemon_log", spec.stdoutLog() + " " + spec.stderrLog());
        boolean measure = o.only.contains("startup");
        // Warm-up start: a launcher may build its AppCDS/AOT archive on the first run.
        DaemonStartup.Started d = DaemonStartup.start(spec, o.token);
        if (!measure) {
            daemon = d.daemon();
            daemonJvm = d.jvmPid();
            return;
        }
        List<String> trivialOpts = DaemonStartup.jvmOptionsForTrivialProgram(commandLine(d.jvmPid()));
        String java = new ProcessObserver(d.jvmPid()).exe().toString();
        info.put(
                "trivial_java_command",
                java + " " + String.join(" ", trivialOpts) + " -cp <bench> " + TrivialMain.class.getName());
        stop(d.daemon());
        int runs = o.startupRuns();
        double[] accept = new double[runs];
        double[] serving = new double[runs];
        double[] trivial = new double[runs];
        double[] idleRss = new double[runs];
        double[] idleThreads = new double[runs];
        double[] idleAnon = new double[runs];
        DaemonStartup.trivialJava(java, trivialOpts, 1, 1);
        for (int i = 0; i < runs; i++) {
            trivial[i] = DaemonStartup.trivialJava(java, trivialOpts, 0, 1)[0];
            d = DaemonStartup.start(spec, o.token);
            accept[i] = d.acceptMs();
            serving[i] = d.servingMs();
            Thread.sleep(o.settleMs());
            ProcStatus st = status(d.jvmPid());
            idleRss[i] = mib(st.rssBytes());
            idleThreads[i] = st.threads();
            idleAnon[i] = mib(st.anonRssBytes());
            if (i < runs - 1) {
                stop(d.daemon());
            }
        }
        daemon = d.daemon();
        daemonJvm = d.jvmPid();
        Stats triv = Stats.of(trivial);
        metrics.add(new Metric("startup_ports_accepting", "ms", Stats.of(accept))
                .against("trivial_java_exit", triv)
                .atMost(4.0, "<= 4x trivial Java")
                .note("exec -> both ports accept TCP"));
        metrics.add(new Metric("startup_ports_serving", "ms", Stats.of(serving))
                .against("trivial_java_exit", triv)
                .atMost(4.0, "<= 4x trivial Java")
                .note("exec -> /v1/health 200 and a gRPC answer"));
        Stats rss = Stats.of(idleRss);
        metrics.add(new Metric("rss_idle", "MiB", rss)
                .ratio(rss.p50() / 64.0)
                .atMost(1.0, "<= 64 MiB")
                .note("VmRSS " + o.settleMs() + " ms after serving"));
        Stats anon = Stats.of(idleAnon);
        metrics.add(new Metric("rss_idle_private", "MiB", anon)
                .ratio(anon.p50() / 64.0)
                .note("RssAnon: the part of rss_idle not backed by shareable files (jar, libjvm, CDS archive)"));
        metrics.add(new Metric("threads_idle", "threads", Stats.of(idleThreads))
                .ratio(Stats.of(idleThreads).p50() / 32.0)
                .note("ratio = threads / 32"));
    }

    private void executeSection(GrpcBench g) throws Exception {
        int n = o.executeN();
        floor.sequential(20, "/bin/true");
        Stats fTrue = Stats.of(floor.sequential(n, "/bin/true"));
        Stats fSh = Stats.of(floor.sequential(n, "/bin/sh", "-c", "echo hi"));
        Stats ex = Stats.of(g.executeLatency(o.executeWarmup(), n, "", "/bin/true"));
        metrics.add(new Metric("execute_true", "ms", ex)
                .against("spawn_true", fTrue)
                .atMost(1.5, "p50 <= 1.5x floor"));
        metrics.add(new Metric("execute_true_p99", "ms", ex)
                .against("spawn_true", fTrue)
                .ratio(ex.p99() / fTrue.p50())
                .atMost(3.0, "p99 <= 3x floor p50")
                .unguarded()
                .note("ratio = p99 / floor p50"));
        Stats rtt = Stats.of(g.noopLatency(o.executeWarmup(), n));
        metrics.add(new Metric("grpc_noop_rtt", "ms", rtt)
                .against("spawn_true", fTrue)
                .unguarded()
                .note("SendSignal to a missing id: the gRPC round trip alone"));
        metrics.add(new Metric("execute_true_minus_rtt", "ms", Stats.of(new double[] {ex.p50() - rtt.p50()}))
                .against("spawn_true", fTrue)
                .unguarded()
                .note("execute_true p50 - grpc_noop_rtt p50: the process part of an Execute vs the floor"));
        Stats sh = Stats.of(g.executeLatency(o.executeWarmup() / 2, n, "hi\n", "/bin/sh", "-c", "echo hi"));
        metrics.add(new Metric("execute_sh_echo", "ms", sh).against("spawn_sh_echo", fSh));
        for (int c : new int[] {8, 64}) {
            Stats base = Stats.ofRates(floor.concurrentRates(c, o.windows(), o.windowMs()));
            Stats rates = Stats.ofRates(g.executeRates(c, o.windows(), o.windowMs()));
            metrics.add(new Metric("execute_ops_" + c + "_clients", "ops/s", rates)
                    .against("spawn_ops_" + c, base)
                    .higherIsBetter()
                    .note("p99 column = slowest 1% window"));
        }
    }

    private void streamSection(GrpcBench g) throws Exception {
        long bytes = o.bigBytes();
        int runs = o.bigRuns();
        LocalBaselines.pipe(bytes, 1);
        Stats pipe = Stats.ofRates(LocalBaselines.pipe(bytes, runs));
        g.startThroughput(Math.min(bytes, 64L << 20), 1);
        Stats st = Stats.ofRates(g.startThroughput(bytes, runs));
        metrics.add(new Metric("start_stream_" + human(bytes), "MB/s", st)
                .against("pipe_head_cat", pipe)
                .atLeast(0.5, ">= 50% of pipe"));
        Stats fSh = Stats.of(floor.sequential(o.executeN() / 2, "/bin/echo", "hi"));
        Stats ttfb = Stats.of(g.startTimeToFirstByte(o.executeWarmup() / 2, o.executeN() / 2));
        metrics.add(new Metric("start_first_byte", "ms", ttfb)
                .against("spawn_echo", fSh)
                .note("Start(echo hi) -> first stdout event"));
    }

    private void filesSection(RestBench r) throws Exception {
        long bytes = o.bigBytes();
        int runs = o.bigRuns();
        Path local = Files.createDirectories(work.resolve("local"));
        Path src = local.resolve("big.src");
        writeRandomFile(src, bytes);
        Stats cp = Stats.ofRates(LocalBaselines.cpSync(src, local.resolve("big.copy"), runs));
        Stats put = Stats.ofRates(r.putFile(src, runs));
        metrics.add(new Metric("put_" + human(bytes), "MB/s", put)
                .against("cp_sync", cp)
                .atLeast(0.5, ">= 50% of cp+sync"));
        Stats cat = Stats.ofRates(LocalBaselines.cat(src, runs));
        Stats get = Stats.ofRates(r.getFile(bytes, runs));
        metrics.add(new Metric("get_" + human(bytes), "MB/s", get)
                .against("cat", cat)
                .atLeast(0.25, ">= 25% of cat"));
        Files.deleteIfExists(src);
        Path small = Files.createDirectories(local.resolve("small"));
        for (int c : new int[] {1, 8}) {
            Stats base = Stats.ofRates(LocalBaselines.smallFileRoundTrips(small, c, o.windows(), o.windowMs()));
            Stats rt = Stats.ofRates(r.smallRoundTrips(c, o.windows(), o.windowMs()));
            Metric m = new Metric("rt_4k_" + c + "_clients", "rt/s", rt)
                    .against("local_4k_" + c, base)
                    .higherIsBetter();
            if (c == 8) {
                m.atLeast(0.35, ">= 35% of local");
            }
            metrics.add(m.note("PUT+GET 4 KiB; local = mkstemp, write, fsync, rename, read"));
        }
    }

    private void streamsSection(GrpcBench g) throws Exception {
        int n = o.concurrentStreams();
        double[] liveRss = {-1};
        double[] liveThreads = {-1};
        GrpcBench.ConcurrentResult cr = g.concurrentStreams(n, () -> {
            if (daemon != null) {
                ProcStatus st = status(daemonJvm);
                liveRss[0] = mib(st.rssBytes());
                liveThreads[0] = st.threads();
            }
        });
        Metric m = new Metric("streams_" + n + "_concurrent", "ms", Stats.of(new double[] {cr.totalMs()}))
                .note(cr.completed() + "/" + n + " completed, " + cr.errors() + " errors, all live after "
                        + Math.round(cr.allReadyMs()) + " ms"
                        + (cr.firstError() != null ? "; first error: " + cr.firstError() : ""));
        m.targetText = "all complete, 0 errors";
        m.met = cr.completed() == n && cr.errors() == 0;
        metrics.add(m);
        if (!m.met) {
            failures.put("streams", m.note);
        }
        if (liveRss[0] > 0) {
            metrics.add(new Metric("rss_" + n + "_live_streams", "MiB", Stats.of(liveRss))
                    .ratio(liveRss[0] / 192.0)
                    .atMost(1.0, "<= 192 MiB")
                    .note("VmRSS with all streams live"));
            metrics.add(new Metric("threads_" + n + "_live_streams", "threads", Stats.of(liveThreads))
                    .ratio(liveThreads[0] / 32.0)
                    .note("ratio = threads / 32"));
        }
    }

    private void afterSection() throws Exception {
        Thread.sleep(o.settleMs() * 2);
        ProcStatus st = status(daemonJvm);
        double peak = mib(st.peakRssBytes());
        double rss = mib(st.rssBytes());
        metrics.add(new Metric("rss_peak", "MiB", Stats.of(new double[] {peak}))
                .ratio(peak / 192.0)
                .note("VmHWM over the whole run; ratio = / 192 MiB"));
        metrics.add(new Metric("rss_after", "MiB", Stats.of(new double[] {rss}))
                .ratio(rss / 64.0)
                .note("VmRSS " + o.settleMs() * 2 + " ms after the load; ratio = / 64 MiB"));
        metrics.add(new Metric("threads_peak", "threads", Stats.of(new double[] {sampler.maxThreads()}))
                .ratio(sampler.maxThreads() / 32.0)
                .unguarded()
                .note("max sampled every 25 ms"));
    }

    private static ProcStatus status(long pid) {
        return ProcStatus.read(pid)
                .orElseThrow(() -> new IllegalStateException("the daemon (pid " + pid + ") has gone"));
    }

    private static List<String> commandLine(long pid) {
        try {
            return new ProcessObserver(pid).cmdline();
        } catch (IllegalStateException e) {
            return List.of();
        }
    }

    private static double mib(long bytes) {
        return bytes / 1048576.0;
    }

    /** SIGTERM, then SIGKILL after 20 s. */
    private static void stop(RunningDaemon d) {
        d.stop(Duration.ofSeconds(20));
    }

    private static void writeRandomFile(Path f, long bytes) throws IOException {
        byte[] block = new byte[1 << 20];
        new Random(42).nextBytes(block);
        try (OutputStream os = Files.newOutputStream(f)) {
            long left = bytes;
            while (left > 0) {
                int n = (int) Math.min(left, block.length);
                os.write(block, 0, n);
                block[0]++; // no two blocks identical
                left -= n;
            }
        }
    }

    static String human(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "GiB";
        }
        if (bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "MiB";
        }
        return bytes + "B";
    }

    private static void deleteTree(Path p) {
        try (Stream<Path> s = Files.walk(p)) {
            s.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }
}
