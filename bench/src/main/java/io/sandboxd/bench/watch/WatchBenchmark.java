package io.sandboxd.bench.watch;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import io.sandboxd.client.Command;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.FileWatch;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.WatchEvent;
import io.sandboxd.client.WatchOptions;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Benchmark of the filesystem watch (runtime-contract §4.2), A/B interleaved with its same-run
 * baseline, the JDK's own inotify watch ({@code java.nio.file.WatchService}) of a local directory
 * driven by the same writer:
 *
 * <ul>
 *   <li>latency from a process's write (a python3 loop in the sandbox stamps the file name with
 *       {@code time.time_ns()} before it opens the file) to its {@code modified} event at this
 *       client; same host, same clock;
 *   <li>a burst: the same process creating files as fast as it can; events/s delivered to this
 *       client and whether a {@code resync} came, against the files/s the process managed.
 * </ul>
 *
 * Run: {@code java -jar bench/target/sandboxd-bench.jar watch [--start-daemon daemon/target/sandboxd.jar]}.
 */
@CommandLine.Command(
        name = "sandboxd-bench watch",
        mixinStandardHelpOptions = true,
        description = "Benchmark of the filesystem watch: write-to-event latency and burst throughput, "
                + "against the JDK's WatchService on a local directory in the same run.")
public final class WatchBenchmark implements Callable<Integer> {
    static final String LATENCY_WRITER = """
            import os, sys, time
            d, n, iv = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
            for i in range(n):
                t = time.time_ns()
                with open(os.path.join(d, "w%d_%d" % (i, t)), "w") as f:
                    f.write("x")
                time.sleep(iv)
            """;
    static final String BURST_WRITER = """
            import os, sys, time
            d, n = sys.argv[1], int(sys.argv[2])
            t0 = time.time()
            for i in range(n):
                open(os.path.join(d, "b%d" % i), "w").close()
            print(n / (time.time() - t0))
            """;

    @Option(
            names = "--start-daemon",
            defaultValue = "daemon/target/sandboxd.jar",
            description = "The daemon jar (or launcher script) to start, unless --rest/--grpc name a running one "
                    + "(default ${DEFAULT-VALUE}).")
    Path startDaemon;

    @Option(names = "--rest", description = "REST base of a running daemon on this host (same clock).")
    String rest;

    @Option(names = "--grpc", description = "gRPC host:port of that daemon.")
    String grpc;

    @Option(
            names = "--writes",
            defaultValue = "300",
            description = "Latency samples per round (default ${DEFAULT-VALUE}).")
    int writes;

    @Option(
            names = "--interval-ms",
            defaultValue = "10",
            description = "Pause between two timed writes (default ${DEFAULT-VALUE}).")
    int intervalMs;

    @Option(names = "--burst", defaultValue = "50000", description = "Files per burst (default ${DEFAULT-VALUE}).")
    int burst;

    @Option(names = "--rounds", defaultValue = "3", description = "A/B rounds (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--python", defaultValue = "/usr/bin/python3", description = "python3 in the sandbox and here.")
    String python;

    @Option(
            names = "--json",
            defaultValue = "watch-benchmark.json",
            description = "Where to write results (default ${DEFAULT-VALUE}).")
    Path json;

    private PrintStream out = System.out;

    public static int run(String[] args) {
        return new CommandLine(new WatchBenchmark())
                .setErr(new PrintWriter(System.err, true))
                .execute(args);
    }

    @Override
    public Integer call() throws Exception {
        String loadBefore = load();
        RunningDaemon daemon = null;
        String restBase = rest;
        String grpcTarget = grpc;
        if (rest == null || grpc == null) {
            DaemonSpec spec = startDaemon.toString().endsWith(".jar")
                    ? DaemonSpec.jar(startDaemon)
                            .withJvmOptions("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss256k")
                    : DaemonSpec.launcherScript(startDaemon);
            daemon = spec.withLogName("watch-bench").start();
            restBase = daemon.restBase();
            grpcTarget = daemon.grpcTarget();
        }
        Path local = Files.createTempDirectory("watch-bench-local");
        try (SandboxdClient connected = SandboxdClient.connect(grpcTarget, restBase)) {
            // a burst's writer runs longer than the default 30 s call deadline on a loaded machine
            SandboxdClient client = connected.withCallTimeout(java.time.Duration.ofMinutes(10));
            String base = "watch-bench-" + Long.toHexString(System.nanoTime());
            List<Double> lat = new ArrayList<>();
            List<Double> latLocal = new ArrayList<>();
            List<Double> rate = new ArrayList<>();
            List<Double> produced = new ArrayList<>();
            List<Double> rateLocal = new ArrayList<>();
            List<Double> producedLocal = new ArrayList<>();
            int resyncs = 0;
            int overflowsLocal = 0;
            // warm-up of both sides (JIT, first watch), not counted
            new SandboxSide(client, base + "/warm", python).latency(LATENCY_WRITER, 50, intervalMs);
            new LocalSide(local.resolve("warm"), python).latency(LATENCY_WRITER, 50, intervalMs);
            for (int r = 0; r < rounds; r++) {
                lat.addAll(
                        new SandboxSide(client, base + "/lat" + r, python).latency(LATENCY_WRITER, writes, intervalMs));
                latLocal.addAll(
                        new LocalSide(local.resolve("lat" + r), python).latency(LATENCY_WRITER, writes, intervalMs));
                Burst b = new SandboxSide(client, base + "/burst" + r, python).burst(BURST_WRITER, burst);
                rate.add(b.eventsPerSecond());
                produced.add(b.producedPerSecond());
                resyncs += b.resyncs();
                Burst l = new LocalSide(local.resolve("burst" + r), python).burst(BURST_WRITER, burst);
                rateLocal.add(l.eventsPerSecond());
                producedLocal.add(l.producedPerSecond());
                overflowsLocal += l.resyncs();
                client.delete(base + "/burst" + r, true);
                deleteTree(local.resolve("burst" + r));
            }
            client.delete(base, true);
            String loadAfter = load();
            // the daemon's resident memory after every round (its peak: journals, scans, streams)
            String memory = daemon == null ? "not measured (--rest/--grpc)" : memory(daemon.jvmPid());
            report(
                    lat,
                    latLocal,
                    rate,
                    produced,
                    rateLocal,
                    producedLocal,
                    resyncs,
                    overflowsLocal,
                    loadBefore,
                    loadAfter,
                    memory);
            return 0;
        } finally {
            deleteTree(local);
            if (daemon != null) {
                daemon.close();
            }
        }
    }

    private void report(
            List<Double> lat,
            List<Double> latLocal,
            List<Double> rate,
            List<Double> produced,
            List<Double> rateLocal,
            List<Double> producedLocal,
            int resyncs,
            int overflowsLocal,
            String loadBefore,
            String loadAfter,
            String memory)
            throws Exception {
        double[] l = sorted(lat);
        double[] ll = sorted(latLocal);
        out.printf(
                Locale.ROOT,
                "%nwatch benchmark (%d rounds, A/B interleaved); load average before: %s, after: %s%n",
                rounds,
                loadBefore,
                loadAfter);
        out.printf(
                Locale.ROOT,
                "%-40s %10s %10s %12s %12s %8s  %s%n",
                "figure",
                "p50",
                "p99",
                "baseline p50",
                "baseline p99",
                "ratio",
                "target");
        out.printf(
                Locale.ROOT,
                "%-40s %10.2f %10.2f %12.2f %12.2f %8.2f  %s%n",
                "write -> event at the client (ms)",
                q(l, 0.5),
                q(l, 0.99),
                q(ll, 0.5),
                q(ll, 0.99),
                q(l, 0.5) / q(ll, 0.5),
                "p50 <= 5 ms: " + (q(l, 0.5) <= 5 ? "MET" : "MISSED"));
        double[] r = sorted(rate);
        double[] p = sorted(produced);
        double[] rl = sorted(rateLocal);
        double[] pl = sorted(producedLocal);
        out.printf(
                Locale.ROOT,
                "%-40s %10.0f %10.0f %12.0f %12.0f %8.2f  %s%n",
                "burst: events/s at the client",
                q(r, 0.5),
                r[0],
                q(p, 0.5),
                p[0],
                q(r, 0.5) / q(p, 0.5),
                "baseline: files/s the process created; resyncs: " + resyncs);
        out.printf(
                Locale.ROOT,
                "%-40s %10.0f %10.0f %12.0f %12.0f %8.2f  %s%n",
                "burst: JDK WatchService, local (events/s)",
                q(rl, 0.5),
                rl[0],
                q(pl, 0.5),
                pl[0],
                q(rl, 0.5) / q(pl, 0.5),
                "overflows: " + overflowsLocal);
        out.println("(rates: p50 = median round, p99 column = slowest round)");
        out.println("daemon memory after the rounds: " + memory);
        JsonObject o = new JsonObject();
        o.addProperty("load_before", loadBefore);
        o.addProperty("load_after", loadAfter);
        o.addProperty("rounds", rounds);
        o.addProperty("latency_ms_p50", q(l, 0.5));
        o.addProperty("latency_ms_p99", q(l, 0.99));
        o.addProperty("latency_local_ms_p50", q(ll, 0.5));
        o.addProperty("latency_local_ms_p99", q(ll, 0.99));
        o.addProperty("burst_files", burst);
        o.addProperty("burst_events_per_s_median", q(r, 0.5));
        o.addProperty("burst_produced_per_s_median", q(p, 0.5));
        o.addProperty("burst_resyncs", resyncs);
        o.addProperty("burst_local_events_per_s_median", q(rl, 0.5));
        o.addProperty("burst_local_overflows", overflowsLocal);
        o.addProperty("daemon_memory", memory);
        Files.writeString(json, new GsonBuilder().setPrettyPrinting().create().toJson(o));
        out.println("JSON written to " + json);
    }

    static double[] sorted(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a;
    }

    /** Nearest-rank quantile of sorted values. */
    static double q(double[] sorted, double quantile) {
        int idx = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }

    static long nowNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** The nanosecond stamp in {@code w<i>_<t>}, or -1. */
    static long stamp(String name) {
        int us = name.lastIndexOf('_');
        int slash = name.lastIndexOf('/');
        if (us < 0 || !name.startsWith("w", slash + 1)) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(us + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (Exception e) {
            return "?";
        }
    }

    /** VmRSS and VmHWM (peak) of a process, from /proc. */
    static String memory(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                    .filter(l -> l.startsWith("VmRSS") || l.startsWith("VmHWM"))
                    .map(l -> l.replaceAll("\\s+", " "))
                    .reduce((a, b) -> a + ", " + b)
                    .orElse("?");
        } catch (Exception e) {
            return "?";
        }
    }

    static void deleteTree(Path p) throws java.io.IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var s = Files.walk(p)) {
            s.sorted((a, b) -> b.getNameCount() - a.getNameCount())
                    .forEach(x -> x.toFile().delete());
        }
    }

    /** A burst's figures. */
    record Burst(double eventsPerSecond, double producedPerSecond, int resyncs) {}

    /** The daemon's watch, the writer a process in the sandbox. */
    record SandboxSide(SandboxdClient client, String dir, String python) {
        List<Double> latency(String script, int n, int intervalMs) throws Exception {
            client.execute("mkdir", "-p", dir);
            List<Double> out = new ArrayList<>();
            try (FileWatch w = client.watch("/" + dir, WatchOptions.defaults())) {
                CompletableFuture<ExecResult> writer = CompletableFuture.supplyAsync(() -> client.execute(
                        Command.of(python, "-c", script, dir, String.valueOf(n), String.valueOf(intervalMs / 1000.0))));
                while (out.size() < n) {
                    WatchEvent e = w.next();
                    long now = nowNanos();
                    if (e == null || e.isError()) {
                        throw new IllegalStateException("the watch ended: " + (e == null ? "" : e.message()));
                    }
                    long t = stamp(e.path());
                    if (e.type().equals("modified") && t > 0) {
                        out.add((now - t) / 1e6);
                    }
                }
                ExecResult r = writer.get();
                if (r.exitCode() != 0) {
                    throw new IllegalStateException(
                            "the writer failed: " + r.stderr().toString(StandardCharsets.UTF_8));
                }
            }
            return out;
        }

        Burst burst(String script, int n) throws Exception {
            client.execute("mkdir", "-p", dir);
            try (FileWatch w = client.watch("/" + dir, WatchOptions.defaults())) {
                CompletableFuture<ExecResult> writer = CompletableFuture.supplyAsync(
                        () -> client.execute(Command.of(python, "-c", script, dir, String.valueOf(n))));
                long first = 0;
                long last = 0;
                int created = 0;
                int resyncs = 0;
                // until every creation arrived or a resync says some never will
                while (created < n && resyncs == 0) {
                    WatchEvent e = w.next();
                    if (e == null || e.isError()) {
                        break;
                    }
                    long now = System.nanoTime();
                    if (e.isResync()) {
                        resyncs++;
                    } else if (e.type().equals("created")) {
                        if (created++ == 0) {
                            first = now;
                        }
                        last = now;
                    }
                }
                ExecResult r = writer.get();
                double produced = Double.parseDouble(r.stdoutText().strip());
                double seconds = Math.max(1e-9, (last - first) / 1e9);
                return new Burst(created / seconds, produced, resyncs);
            }
        }
    }

    /** The baseline: the JDK's inotify watch of a local directory, the writer a local process. */
    record LocalSide(Path dir, String python) {
        List<Double> latency(String script, int n, int intervalMs) throws Exception {
            Files.createDirectories(dir);
            List<Double> out = new ArrayList<>();
            try (java.nio.file.WatchService ws = dir.getFileSystem().newWatchService()) {
                dir.register(ws, java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY);
                Process p = new ProcessBuilder(
                                python,
                                "-c",
                                script,
                                dir.toString(),
                                String.valueOf(n),
                                String.valueOf(intervalMs / 1000.0))
                        .redirectErrorStream(true)
                        .start();
                while (out.size() < n) {
                    java.nio.file.WatchKey k = ws.take();
                    long now = nowNanos();
                    for (java.nio.file.WatchEvent<?> e : k.pollEvents()) {
                        long t = stamp(String.valueOf(e.context()));
                        if (t > 0 && out.size() < n) {
                            out.add((now - t) / 1e6);
                        }
                    }
                    k.reset();
                }
                p.waitFor();
            }
            return out;
        }

        Burst burst(String script, int n) throws Exception {
            Files.createDirectories(dir);
            try (java.nio.file.WatchService ws = dir.getFileSystem().newWatchService()) {
                dir.register(ws, java.nio.file.StandardWatchEventKinds.ENTRY_CREATE);
                Process p = new ProcessBuilder(python, "-c", script, dir.toString(), String.valueOf(n)).start();
                long first = 0;
                long last = 0;
                int created = 0;
                int overflows = 0;
                while (created < n && overflows == 0) {
                    java.nio.file.WatchKey k = ws.poll(10, java.util.concurrent.TimeUnit.SECONDS);
                    if (k == null) {
                        break;
                    }
                    long now = System.nanoTime();
                    for (java.nio.file.WatchEvent<?> e : k.pollEvents()) {
                        if (e.kind() == java.nio.file.StandardWatchEventKinds.OVERFLOW) {
                            overflows++;
                        } else {
                            if (created++ == 0) {
                                first = now;
                            }
                            last = now;
                        }
                    }
                    k.reset();
                }
                String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                p.waitFor();
                double seconds = Math.max(1e-9, (last - first) / 1e9);
                return new Burst(created / seconds, Double.parseDouble(stdout.strip()), overflows);
            }
        }
    }
}
