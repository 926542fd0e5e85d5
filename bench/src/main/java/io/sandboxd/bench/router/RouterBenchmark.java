package io.sandboxd.bench.router;

import io.netty.channel.EventLoopGroup;
import io.sandboxd.api.GoDuration;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Loopback benchmark of the router: starts a small keep-alive backend in this JVM and the router
 * as a separate process from its real jar (or targets a running router with --router), then runs
 * a closed-loop load at each concurrency, first straight to the backend (baseline), then through
 * the router. Prints a table and writes JSON. Run: {@code java -jar bench/target/sandboxd-bench.jar router}.
 */
@Command(
        name = "sandboxd-bench router",
        mixinStandardHelpOptions = true,
        description =
                "Benchmark of the router (router/target/sandboxd-router.jar, started as its own process) against a loopback backend.")
public final class RouterBenchmark implements java.util.concurrent.Callable<Integer> {
    static final String DEFAULT_JAR = "router/target/sandboxd-router.jar";

    @Option(
            names = "--concurrency",
            split = ",",
            defaultValue = "10,50,200",
            description = "Concurrency levels (default ${DEFAULT-VALUE}).")
    List<Integer> concurrency;

    @Option(
            names = "--duration",
            defaultValue = "10s",
            description = "Measured time per run (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(
            names = "--warmup",
            defaultValue = "3s",
            description = "Unmeasured warm-up per run (default ${DEFAULT-VALUE}).")
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

    @Option(names = "--skip-baseline", description = "Do not measure direct-to-backend.")
    boolean skipBaseline;

    @Option(
            names = "--repeat",
            defaultValue = "1",
            description = "Runs per cell; the run with the median req/s is reported (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(
            names = "--json",
            defaultValue = "router-benchmark.json",
            description = "Where to write results (default ${DEFAULT-VALUE}).")
    Path json;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Parses {@code args}, runs the benchmark; 0 on success, 2 on a usage error or a missing router jar. */
    public static int run(String[] args) {
        return run(args, System.err);
    }

    static int run(String[] args, PrintStream err) {
        RouterBenchmark b = new RouterBenchmark();
        b.err = err;
        return new CommandLine(b).setErr(new PrintWriter(err, true)).execute(args);
    }

    private PrintStream err = System.err;

    @FunctionalInterface
    interface Gen {
        LoadGenerator.Result run(
                InetSocketAddress target,
                Map<String, String> headers,
                int bodyBytes,
                int concurrency,
                long warmupMillis,
                long measureMillis)
                throws InterruptedException;
    }

    record Row(String target, String shape, int concurrency, LoadGenerator.Result r) {}

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
        EventLoopGroup backendGroup = Transport.group(1, "bench-backend");
        EventLoopGroup clientGroup = Transport.group(clientThreads, "bench-client");
        BenchBackend ownBackend = null;
        RouterProcess ownRouter = null;
        String routerDescription;
        try {
            InetSocketAddress backendAddr;
            if (backend != null) {
                backendAddr = hostPort(backend);
            } else {
                ownBackend = new BenchBackend(backendGroup);
                backendAddr = new InetSocketAddress("127.0.0.1", ownBackend.port());
            }
            InetSocketAddress routerAddr;
            if (router != null) {
                routerAddr = hostPort(router);
                routerDescription = "running at " + router;
            } else {
                List<String> jvmOpts = routerJvmOpts.isBlank()
                        ? List.of()
                        : List.of(routerJvmOpts.trim().split("\\s+"));
                ownRouter = RouterProcess.start(routerJar, jvmOpts, routerThreads);
                routerAddr = ownRouter.address();
                routerDescription = "started from " + routerJar + " (pid " + ownRouter.pid() + ", JVM options "
                        + (jvmOpts.isEmpty() ? "none" : String.join(" ", jvmOpts)) + ", " + routerThreads
                        + " io threads)";
            }
            Map<String, String> routing = Map.of(
                    "X-Sandbox-ID", "bench",
                    "X-Sandbox-Pod-IP", backendAddr.getAddress().getHostAddress(),
                    "X-Sandbox-Port", Integer.toString(backendAddr.getPort()));
            LoadGenerator one = new LoadGenerator(clientGroup);
            Gen gen = (addr, hdrs, bytes, c, w, m) -> {
                List<LoadGenerator.Result> runs = new ArrayList<>();
                for (int i = 0; i < Math.max(1, repeat); i++) {
                    runs.add(one.run(addr, hdrs, bytes, c, w, m));
                }
                runs.sort(java.util.Comparator.comparingDouble(LoadGenerator.Result::rps));
                return runs.get(runs.size() / 2);
            };
            List<Row> rows = new ArrayList<>();
            System.out.printf(
                    Locale.ROOT,
                    "router benchmark: %d cores, %s, warm-up %d ms, measure %d ms per run, median of %d, load average %.1f%n",
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                    warm,
                    measure,
                    Math.max(1, repeat),
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                            .getSystemLoadAverage());
            System.out.println("router " + routerDescription);
            for (int c : concurrency) {
                if (!skipBaseline) {
                    rows.add(new Row("direct", "GET", c, gen.run(backendAddr, Map.of(), 0, c, warm, measure)));
                    print(rows.get(rows.size() - 1));
                }
                rows.add(new Row("router", "GET", c, gen.run(routerAddr, routing, 0, c, warm, measure)));
                print(rows.get(rows.size() - 1));
            }
            if (postBytes > 0) {
                if (!skipBaseline) {
                    rows.add(new Row(
                            "direct",
                            "POST " + postBytes + " B",
                            50,
                            gen.run(backendAddr, Map.of(), postBytes, 50, warm, measure)));
                    print(rows.get(rows.size() - 1));
                }
                rows.add(new Row(
                        "router",
                        "POST " + postBytes + " B",
                        50,
                        gen.run(routerAddr, routing, postBytes, 50, warm, measure)));
                print(rows.get(rows.size() - 1));
            }
            System.out.println();
            System.out.println(table(rows));
            writeJson(rows, routerDescription);
            System.out.println("wrote " + json.toAbsolutePath());
            return 0;
        } finally {
            if (ownRouter != null) {
                ownRouter.close();
            }
            if (ownBackend != null) {
                ownBackend.close();
            }
            clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            backendGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static void print(Row row) {
        System.out.printf(
                Locale.ROOT,
                "  %-6s %-12s c=%-4d %9.0f req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d%n",
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

    private void writeJson(List<Row> rows, String routerDescription) throws IOException {
        StringBuilder b = new StringBuilder("{\n  \"cores\": ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(",\n  \"java\": \"")
                .append(System.getProperty("java.version"))
                .append("\",\n  \"router\": \"")
                .append(routerDescription.replace("\\", "\\\\").replace("\"", "\\\""))
                .append("\",\n  \"load_average_at_end\": ")
                .append(String.format(
                        Locale.ROOT,
                        "%.2f",
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                                .getSystemLoadAverage()))
                .append(",\n  \"repeat\": ")
                .append(Math.max(1, repeat))
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
        b.append("  ]\n}\n");
        Files.writeString(json, b.toString(), StandardCharsets.UTF_8);
    }

    private static InetSocketAddress hostPort(String s) {
        int i = s.lastIndexOf(':');
        return new InetSocketAddress(s.substring(0, i), Integer.parseInt(s.substring(i + 1)));
    }
}
