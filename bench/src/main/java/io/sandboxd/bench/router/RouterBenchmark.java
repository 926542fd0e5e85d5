package io.sandboxd.bench.router;

import io.netty.channel.EventLoopGroup;
import io.sandboxd.api.GoDuration;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Loopback benchmark of the router, every figure a ratio against a baseline measured in the same
 * run. HTTP/1.1: a small keep-alive backend in this JVM and the router as a separate process from
 * its real jar (or a running router with --router); a closed-loop load at each concurrency straight
 * to the backend, through the router and, with --baseline-router-jar, through a second router (an
 * earlier build, say), the targets interleaved within each cell. gRPC: the packaged daemon as a
 * process, sequential Execute latency (direct and router alternating call by call) and Start stream
 * rate (alternating stream by stream), straight to it and through the router. The router's RSS idle and after each load. Prints tables and writes JSON. Run:
 * {@code java -jar bench/target/sandboxd-bench.jar router}.
 */
@Command(
        name = "sandboxd-bench router",
        mixinStandardHelpOptions = true,
        description =
                "Benchmark of the router (router/target/sandboxd-router.jar, started as its own process) against a loopback"
                        + " HTTP/1.1 backend and the packaged daemon (gRPC).")
public final class RouterBenchmark implements java.util.concurrent.Callable<Integer> {
    static final String DEFAULT_JAR = "router/target/sandboxd-router.jar";
    static final String DEFAULT_DAEMON_JAR = "daemon/target/sandboxd.jar";

    @Option(
            names = "--concurrency",
            split = ",",
            defaultValue = "10,50,200",
            description = "HTTP/1.1 concurrency levels (default ${DEFAULT-VALUE}).")
    List<Integer> concurrency;

    @Option(
            names = "--duration",
            defaultValue = "10s",
            description = "Measured time per HTTP/1.1 run (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(
            names = "--warmup",
            defaultValue = "3s",
            description = "Unmeasured warm-up per HTTP/1.1 run (default ${DEFAULT-VALUE}).")
    String warmup;

    @Option(
            names = "--post-bytes",
            defaultValue = "4096",
            description = "Also run a POST of this many bytes at concurrency 50 (0 = skip; default ${DEFAULT-VALUE}).")
    int postBytes;

    @Option(names = "--router", description = "host:port of a running router (default: start one from --router-jar).")
    String router;

    @Option(
            names = "--router-jar",
            defaultValue = DEFAULT_JAR,
            description = "The router jar to start (default ${DEFAULT-VALUE}).")
    Path routerJar;

    @Option(
            names = "--baseline-router-jar",
            description = "A second router jar (e.g. an earlier commit's) measured in the same HTTP/1.1 cells,"
                    + " interleaved with the first, with the same JVM options and threads.")
    Path baselineRouterJar;

    @Option(
            names = "--router-jvm-opts",
            defaultValue = "",
            description =
                    "JVM options of the started router, e.g. \"-XX:+UseSerialGC -XX:TieredStopAtLevel=1\" as in router/deploy (default: none).")
    String routerJvmOpts;

    @Option(
            names = "--backend",
            description = "host:port of the backend the running router should reach via X-Sandbox-Pod-IP.")
    String backend;

    @Option(
            names = "--router-threads",
            defaultValue = "2",
            description = "Event-loop threads of the started router, its --io-threads (default ${DEFAULT-VALUE}).")
    int routerThreads;

    @Option(
            names = "--client-threads",
            defaultValue = "2",
            description = "Load generator threads (default ${DEFAULT-VALUE}).")
    int clientThreads;

    @Option(names = "--skip-baseline", description = "Do not measure HTTP/1.1 straight to the backend.")
    boolean skipBaseline;

    @Option(
            names = "--repeat",
            defaultValue = "1",
            description = "HTTP/1.1 runs per cell and target, the targets interleaved; the median req/s is reported"
                    + " (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--no-grpc", description = "Skip the gRPC part (no daemon needed).")
    boolean noGrpc;

    @Option(
            names = "--daemon-jar",
            defaultValue = DEFAULT_DAEMON_JAR,
            description = "The daemon jar the gRPC part starts (default ${DEFAULT-VALUE}).")
    Path daemonJar;

    @Option(
            names = "--grpc-calls",
            defaultValue = "2000",
            description = "Sequential Execute calls per round and target, direct and router alternating call by call"
                    + " (default ${DEFAULT-VALUE}).")
    int grpcCalls;

    @Option(
            names = "--grpc-warmup-calls",
            defaultValue = "1000",
            description = "Untimed Execute calls per target before the first round (default ${DEFAULT-VALUE}).")
    int grpcWarmupCalls;

    @Option(
            names = "--grpc-rounds",
            defaultValue = "3",
            description = "Execute rounds, each with its own percentiles (default ${DEFAULT-VALUE}).")
    int grpcRounds;

    @Option(
            names = "--start-bytes",
            defaultValue = "1073741824",
            description = "Bytes of one Start stream (head -c N /dev/zero; default ${DEFAULT-VALUE}).")
    long startBytes;

    @Option(
            names = "--start-runs",
            defaultValue = "3",
            description = "Start streams per target, direct and router alternating (default ${DEFAULT-VALUE}).")
    int startRuns;

    @Option(
            names = "--json",
            defaultValue = "router-benchmark.json",
            description = "Where to write results (default ${DEFAULT-VALUE}).")
    Path json;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Parses {@code args}, runs the benchmark; 0 on success, 2 on a usage error or a missing jar. */
    public static int run(String[] args) {
        return run(args, System.err);
    }

    static int run(String[] args, PrintStream err) {
        RouterBenchmark b = new RouterBenchmark();
        b.err = err;
        return new CommandLine(b).setErr(new PrintWriter(err, true)).execute(args);
    }

    private PrintStream err = System.err;

    /** One HTTP/1.1 target: straight to the backend, or a router with the routing headers. */
    record Target(String name, InetSocketAddress address, Map<String, String> headers) {}

    record Row(String target, String shape, int concurrency, LoadGenerator.Result r) {}

    /** The memory of a router process at one moment. */
    record Rss(String router, String when, long rssBytes, long peakBytes) {}

    /** One gRPC Execute round: the same number of sequential calls straight to the daemon and through the router. */
    record ExecuteRound(GrpcThroughRouter.Latency direct, GrpcThroughRouter.Latency router) {
        double addedP50() {
            return router.p50() - direct.p50();
        }
    }

    /** One pair of Start streams. */
    record StartRun(double directMbps, double routerMbps) {}

    @Override
    public Integer call() throws Exception {
        long measure;
        long warm;
        try {
            measure = GoDuration.parse(duration).toMillis();
            warm = GoDuration.parse(warmup).toMillis();
        } catch (IllegalArgumentException e) {
            err.println("sandboxd-bench router: " + e.getMessage());
            return 2;
        }
        if (measure <= 0) {
            err.println("sandboxd-bench router: --duration must be positive (got " + duration + ")");
            return 2;
        }
        if (router == null && !Files.isRegularFile(routerJar)) {
            err.println("sandboxd-bench router: " + routerJar + " not found; build it with "
                    + "./mvnw -B -q -pl router -am -DskipTests package, or pass --router-jar (or --router host:port)");
            return 2;
        }
        if (baselineRouterJar != null && !Files.isRegularFile(baselineRouterJar)) {
            err.println("sandboxd-bench router: --baseline-router-jar " + baselineRouterJar + " not found");
            return 2;
        }
        if (!noGrpc && !Files.isRegularFile(daemonJar)) {
            err.println("sandboxd-bench router: " + daemonJar + " not found (the gRPC part needs the daemon); build it"
                    + " with ./mvnw -B -q -pl daemon -am -DskipTests package, pass --daemon-jar, or --no-grpc");
            return 2;
        }
        if (grpcCalls <= 0 || grpcRounds <= 0 || startRuns <= 0 || startBytes <= 0 || repeat <= 0) {
            err.println("sandboxd-bench router: --grpc-calls, --grpc-rounds, --start-runs, --start-bytes and --repeat"
                    + " must be positive");
            return 2;
        }
        EventLoopGroup backendGroup = Transport.group(1, "bench-backend");
        EventLoopGroup clientGroup = Transport.group(clientThreads, "bench-client");
        BenchBackend ownBackend = null;
        RouterProcess ownRouter = null;
        RouterProcess baselineRouter = null;
        List<String> jvmOpts = routerJvmOpts.isBlank()
                ? List.of()
                : List.of(routerJvmOpts.trim().split("\\s+"));
        List<Rss> rss = new ArrayList<>();
        try {
            InetSocketAddress backendAddr;
            if (backend != null) {
                backendAddr = hostPort(backend);
            } else {
                ownBackend = new BenchBackend(backendGroup);
                backendAddr = new InetSocketAddress("127.0.0.1", ownBackend.port());
            }
            InetSocketAddress routerAddr;
            String routerDescription;
            if (router != null) {
                routerAddr = hostPort(router);
                routerDescription = "running at " + router;
            } else {
                ownRouter = RouterProcess.start(routerJar, jvmOpts, routerThreads);
                routerAddr = ownRouter.address();
                routerDescription = describe(routerJar, ownRouter, jvmOpts);
            }
            String baselineDescription = null;
            if (baselineRouterJar != null) {
                baselineRouter = RouterProcess.start(baselineRouterJar, jvmOpts, routerThreads);
                baselineDescription = describe(baselineRouterJar, baselineRouter, jvmOpts);
            }
            Thread.sleep(1000); // idle: started, nothing sent yet
            sample(rss, "router", ownRouter, "idle");
            sample(rss, "baseline", baselineRouter, "idle");

            Map<String, String> routing = Map.of(
                    "X-Sandbox-ID", "bench",
                    "X-Sandbox-Pod-IP", backendAddr.getAddress().getHostAddress(),
                    "X-Sandbox-Port", Integer.toString(backendAddr.getPort()));
            List<Target> targets = new ArrayList<>();
            if (!skipBaseline) {
                targets.add(new Target("direct", backendAddr, Map.of()));
            }
            targets.add(new Target("router", routerAddr, routing));
            if (baselineRouter != null) {
                targets.add(new Target("baseline", baselineRouter.address(), routing));
            }
            System.out.printf(
                    Locale.ROOT,
                    "router benchmark: %d cores, %s, warm-up %d ms, measure %d ms per run, median of %d, load average %.1f%n",
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                    warm,
                    measure,
                    repeat,
                    loadAverage());
            System.out.println("router " + routerDescription);
            if (baselineDescription != null) {
                System.out.println("baseline router " + baselineDescription);
            }
            LoadGenerator gen = new LoadGenerator(clientGroup);
            List<Row> rows = new ArrayList<>();
            for (int c : concurrency) {
                rows.addAll(cell(gen, targets, "GET", 0, c, warm, measure));
            }
            if (postBytes > 0) {
                rows.addAll(cell(gen, targets, "POST " + postBytes + " B", postBytes, 50, warm, measure));
            }
            sample(rss, "router", ownRouter, "after HTTP/1.1 load");
            sample(rss, "baseline", baselineRouter, "after HTTP/1.1 load");
            System.out.println();
            System.out.println(table(rows));
            System.out.println(ratios(rows));

            List<ExecuteRound> rounds = List.of();
            List<StartRun> starts = List.of();
            if (!noGrpc) {
                Path logs = Files.createTempDirectory("sandboxd-router-bench-");
                try (RunningDaemon daemon = DaemonSpec.jar(daemonJar)
                                .withLogs(logs, "daemon")
                                .start();
                        GrpcThroughRouter g = new GrpcThroughRouter(
                                routerAddr, new InetSocketAddress("127.0.0.1", daemon.grpcPort()))) {
                    System.out.printf(Locale.ROOT, "gRPC: load average %.1f%n", loadAverage());
                    rounds = executeRounds(g);
                    starts = startRuns(g);
                } finally {
                    deleteLogs(logs);
                }
                sample(rss, "router", ownRouter, "after gRPC load");
                System.out.println();
                System.out.println(executeTable(rounds));
                System.out.println(startTable(starts, startBytes));
            }
            if (!rss.isEmpty()) {
                System.out.println(rssTable(rss));
            }
            writeJson(rows, rounds, starts, rss, routerDescription, baselineDescription);
            System.out.println("wrote " + json.toAbsolutePath());
            return 0;
        } finally {
            if (ownRouter != null) {
                ownRouter.close();
            }
            if (baselineRouter != null) {
                baselineRouter.close();
            }
            if (ownBackend != null) {
                ownBackend.close();
            }
            clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            backendGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private String describe(Path jar, RouterProcess p, List<String> jvmOpts) {
        return "started from " + jar + " (pid " + p.pid() + ", JVM options "
                + (jvmOpts.isEmpty() ? "none" : String.join(" ", jvmOpts)) + ", " + routerThreads + " io threads)";
    }

    /**
     * One cell: {@code repeat} runs of each target, interleaved and rotated so that no target is
     * always first after a quiet moment; the run with each target's median req/s is reported.
     */
    private List<Row> cell(
            LoadGenerator gen, List<Target> targets, String shape, int bytes, int c, long warm, long measure)
            throws InterruptedException {
        List<List<LoadGenerator.Result>> runs = new ArrayList<>();
        targets.forEach(t -> runs.add(new ArrayList<>()));
        for (int rep = 0; rep < repeat; rep++) {
            for (int k = 0; k < targets.size(); k++) {
                int i = (k + rep) % targets.size();
                Target t = targets.get(i);
                LoadGenerator.Result r = gen.run(t.address(), t.headers(), bytes, c, warm, measure);
                runs.get(i).add(r);
                print(new Row(t.name(), shape, c, r));
            }
        }
        List<Row> out = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            List<LoadGenerator.Result> rs = runs.get(i);
            rs.sort(Comparator.comparingDouble(LoadGenerator.Result::rps));
            out.add(new Row(targets.get(i).name(), shape, c, rs.get(rs.size() / 2)));
        }
        return out;
    }

    private List<ExecuteRound> executeRounds(GrpcThroughRouter g) {
        GrpcThroughRouter.warmUp(g.direct, grpcWarmupCalls);
        GrpcThroughRouter.warmUp(g.routed, grpcWarmupCalls);
        List<ExecuteRound> rounds = new ArrayList<>();
        for (int r = 0; r < grpcRounds; r++) {
            GrpcThroughRouter.Latency[] both = GrpcThroughRouter.executeLatency(g.direct, g.routed, grpcCalls);
            GrpcThroughRouter.Latency d = both[0];
            GrpcThroughRouter.Latency v = both[1];
            ExecuteRound round = new ExecuteRound(d, v);
            rounds.add(round);
            System.out.printf(
                    Locale.ROOT,
                    "  Execute round %d: direct p50 %.3f ms p99 %.3f ms, router p50 %.3f ms p99 %.3f ms, adds %.3f ms%n",
                    r + 1,
                    d.p50(),
                    d.p99(),
                    v.p50(),
                    v.p99(),
                    round.addedP50());
        }
        return rounds;
    }

    private List<StartRun> startRuns(GrpcThroughRouter g) {
        long warmBytes = Math.min(startBytes, 64L << 20);
        GrpcThroughRouter.startMbPerSecond(g.direct, warmBytes);
        GrpcThroughRouter.startMbPerSecond(g.routed, warmBytes);
        List<StartRun> runs = new ArrayList<>();
        for (int r = 0; r < startRuns; r++) {
            double d;
            double v;
            if (r % 2 == 0) {
                d = GrpcThroughRouter.startMbPerSecond(g.direct, startBytes);
                v = GrpcThroughRouter.startMbPerSecond(g.routed, startBytes);
            } else {
                v = GrpcThroughRouter.startMbPerSecond(g.routed, startBytes);
                d = GrpcThroughRouter.startMbPerSecond(g.direct, startBytes);
            }
            runs.add(new StartRun(d, v));
            System.out.printf(
                    Locale.ROOT,
                    "  Start run %d: direct %.0f MB/s, router %.0f MB/s (%.0f %%)%n",
                    r + 1,
                    d,
                    v,
                    100 * v / d);
        }
        return runs;
    }

    private static void sample(List<Rss> out, String name, RouterProcess p, String when) {
        if (p == null) {
            return;
        }
        ProcStatus.read(p.pid()).ifPresent(s -> out.add(new Rss(name, when, s.rssBytes(), s.peakRssBytes())));
    }

    /** The daemon's two log files and their directory (the launcher removes the root it made itself). */
    private static void deleteLogs(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(dir);
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static void print(Row row) {
        System.out.printf(
                Locale.ROOT,
                "  %-8s %-12s c=%-4d %9.0f req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d%n",
                row.target(),
                row.shape(),
                row.concurrency(),
                row.r().rps(),
                row.r().p50Millis(),
                row.r().p99Millis(),
                row.r().errors());
    }

    static String table(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append("| target | request | concurrency | req/s | p50 ms | p99 ms | errors |\n");
        b.append("|---|---|---|---|---|---|---|\n");
        for (Row row : rows) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %d | %.0f | %.2f | %.2f | %d |%n",
                    row.target(),
                    row.shape(),
                    row.concurrency(),
                    row.r().rps(),
                    row.r().p50Millis(),
                    row.r().p99Millis(),
                    row.r().errors()));
        }
        return b.toString();
    }

    /** Per cell: each router's req/s as a share of direct, and the router's against the baseline router. */
    static String ratios(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append("| request | concurrency | router / direct | baseline / direct | router / baseline |\n");
        b.append("|---|---|---|---|---|\n");
        List<String> cells = rows.stream()
                .map(r -> r.shape() + "|" + r.concurrency())
                .distinct()
                .toList();
        for (String cell : cells) {
            double direct = rps(rows, "direct", cell);
            double router = rps(rows, "router", cell);
            double baseline = rps(rows, "baseline", cell);
            String[] parts = cell.split("\\|");
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s |%n",
                    parts[0],
                    parts[1],
                    ratio(router, direct),
                    ratio(baseline, direct),
                    ratio(router, baseline)));
        }
        return b.toString();
    }

    private static double rps(List<Row> rows, String target, String cell) {
        return rows.stream()
                .filter(r -> r.target().equals(target) && cell.equals(r.shape() + "|" + r.concurrency()))
                .mapToDouble(r -> r.r().rps())
                .findFirst()
                .orElse(Double.NaN);
    }

    private static String ratio(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) ? "–" : String.format(Locale.ROOT, "%.2f", a / b);
    }

    static String executeTable(List<ExecuteRound> rounds) {
        StringBuilder b = new StringBuilder();
        b.append(
                "| Execute round | direct p50 ms | direct p99 ms | router p50 ms | router p99 ms | router adds (p50) ms |\n");
        b.append("|---|---|---|---|---|---|\n");
        for (int i = 0; i < rounds.size(); i++) {
            ExecuteRound r = rounds.get(i);
            b.append(String.format(
                    Locale.ROOT,
                    "| %d (%d calls each) | %.3f | %.3f | %.3f | %.3f | %.3f |%n",
                    i + 1,
                    r.direct().calls(),
                    r.direct().p50(),
                    r.direct().p99(),
                    r.router().p50(),
                    r.router().p99(),
                    r.addedP50()));
        }
        b.append(String.format(
                Locale.ROOT,
                "| median | %.3f | %.3f | %.3f | %.3f | %.3f |%n",
                median(rounds.stream().mapToDouble(r -> r.direct().p50())),
                median(rounds.stream().mapToDouble(r -> r.direct().p99())),
                median(rounds.stream().mapToDouble(r -> r.router().p50())),
                median(rounds.stream().mapToDouble(r -> r.router().p99())),
                median(rounds.stream().mapToDouble(ExecuteRound::addedP50))));
        return b.toString();
    }

    static String startTable(List<StartRun> runs, long bytes) {
        StringBuilder b = new StringBuilder();
        b.append("| Start stream of ").append(bytes).append(" B | direct MB/s | router MB/s | router / direct |\n");
        b.append("|---|---|---|---|\n");
        for (int i = 0; i < runs.size(); i++) {
            StartRun r = runs.get(i);
            b.append(String.format(
                    Locale.ROOT,
                    "| run %d | %.0f | %.0f | %.2f |%n",
                    i + 1,
                    r.directMbps(),
                    r.routerMbps(),
                    r.routerMbps() / r.directMbps()));
        }
        b.append(String.format(
                Locale.ROOT,
                "| median | %.0f | %.0f | %.2f |%n",
                median(runs.stream().mapToDouble(StartRun::directMbps)),
                median(runs.stream().mapToDouble(StartRun::routerMbps)),
                median(runs.stream().mapToDouble(r -> r.routerMbps() / r.directMbps()))));
        return b.toString();
    }

    static String rssTable(List<Rss> rss) {
        StringBuilder b = new StringBuilder();
        b.append("| router process | when | RSS MiB | peak RSS so far MiB |\n");
        b.append("|---|---|---|---|\n");
        for (Rss r : rss) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %.0f | %.0f |%n",
                    r.router(),
                    r.when(),
                    mib(r.rssBytes()),
                    mib(r.peakBytes())));
        }
        return b.toString();
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    /** The median (mean of the middle two for an even count). */
    static double median(java.util.stream.DoubleStream values) {
        double[] s = values.sorted().toArray();
        if (s.length == 0) {
            return Double.NaN;
        }
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private void writeJson(
            List<Row> rows,
            List<ExecuteRound> rounds,
            List<StartRun> starts,
            List<Rss> rss,
            String routerDescription,
            String baselineDescription)
            throws IOException {
        StringBuilder b = new StringBuilder("{\n  \"cores\": ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(",\n  \"java\": \"")
                .append(System.getProperty("java.version"))
                .append("\",\n  \"router\": \"")
                .append(escape(routerDescription))
                .append("\",\n");
        if (baselineDescription != null) {
            b.append("  \"baseline_router\": \"")
                    .append(escape(baselineDescription))
                    .append("\",\n");
        }
        b.append("  \"load_average_at_end\": ")
                .append(String.format(Locale.ROOT, "%.2f", loadAverage()))
                .append(",\n  \"repeat\": ")
                .append(repeat)
                .append(",\n  \"runs\": [\n");
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            b.append(String.format(
                    Locale.ROOT,
                    "    {\"target\": \"%s\", \"request\": \"%s\", \"concurrency\": %d, \"requests\": %d, \"seconds\": %.3f, "
                            + "\"rps\": %.1f, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f, \"errors\": %d}%s%n",
                    row.target(),
                    row.shape(),
                    row.concurrency(),
                    row.r().requests(),
                    row.r().seconds(),
                    row.r().rps(),
                    row.r().p50Millis(),
                    row.r().p99Millis(),
                    row.r().latencyMicros().getMaxValue() / 1000.0,
                    row.r().errors(),
                    i + 1 < rows.size() ? "," : ""));
        }
        b.append("  ],\n  \"grpc_execute\": [\n");
        for (int i = 0; i < rounds.size(); i++) {
            ExecuteRound r = rounds.get(i);
            b.append(String.format(
                    Locale.ROOT,
                    "    {\"calls\": %d, \"direct_p50_ms\": %.4f, \"direct_p99_ms\": %.4f, \"router_p50_ms\": %.4f,"
                            + " \"router_p99_ms\": %.4f}%s%n",
                    r.direct().calls(),
                    r.direct().p50(),
                    r.direct().p99(),
                    r.router().p50(),
                    r.router().p99(),
                    i + 1 < rounds.size() ? "," : ""));
        }
        b.append("  ],\n  \"grpc_start\": [\n");
        for (int i = 0; i < starts.size(); i++) {
            StartRun r = starts.get(i);
            b.append(String.format(
                    Locale.ROOT,
                    "    {\"bytes\": %d, \"direct_mb_per_s\": %.1f, \"router_mb_per_s\": %.1f}%s%n",
                    startBytes,
                    r.directMbps(),
                    r.routerMbps(),
                    i + 1 < starts.size() ? "," : ""));
        }
        b.append("  ],\n  \"rss\": [\n");
        for (int i = 0; i < rss.size(); i++) {
            Rss r = rss.get(i);
            b.append(String.format(
                    Locale.ROOT,
                    "    {\"router\": \"%s\", \"when\": \"%s\", \"rss_bytes\": %d, \"peak_rss_bytes\": %d}%s%n",
                    r.router(),
                    r.when(),
                    r.rssBytes(),
                    r.peakBytes(),
                    i + 1 < rss.size() ? "," : ""));
        }
        b.append("  ]\n}\n");
        Files.writeString(json, b.toString(), StandardCharsets.UTF_8);
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static InetSocketAddress hostPort(String s) {
        int i = s.lastIndexOf(':');
        return new InetSocketAddress(s.substring(0, i), Integer.parseInt(s.substring(i + 1)));
    }
}
