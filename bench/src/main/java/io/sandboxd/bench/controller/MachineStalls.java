package io.sandboxd.bench.controller;

import io.sandboxd.bench.ClientJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Times in which a CPU of this machine ran none of our threads, although one of them was due: one
 * {@link StallMeter} per CPU, pinned with {@code taskset} and at real-time priority with {@code chrt
 * -f} (root only), each waking every 2 ms. On this machine (a two-vCPU virtual machine) they saw
 * stalls of 5-17 ms under the benchmark's load, about every 0.54 s, and none above 3.7 ms beside two
 * busy loops alone; in one paced burst 37 of the 42 claims slower than 70 % of its p99 began or
 * ended within 30 ms of one (measured 2026-12-04). Off unless asked for ({@code --machine-stalls}):
 * the sleepers' wake-ups share the cores too. Without root or the tools the figures say why they
 * are missing.
 */
final class MachineStalls implements AutoCloseable {
    /**
     * A claim that arrives this soon after a stall still queues behind the work it held up (gaps of
     * 22-32 ms without a request or a claim event were measured around stalls of 5-9 ms).
     */
    static final long BACKLOG_NANOS = 30_000_000L;

    static final String METHOD = "one " + StallMeter.SLEEP_MS + " ms sleeper per CPU (taskset -c N chrt -f 50);"
            + " an oversleep of " + StallMeter.REPORT_MS + " ms or more is a stall";
    private static final long START_TIMEOUT_SECONDS = 20;

    record Stall(int cpu, long fromNanos, long nanos) {
        long toNanos() {
            return fromNanos + nanos;
        }
    }

    private final List<Process> meters = new ArrayList<>();
    private final List<Stall> stalls = new ArrayList<>();
    private String notMeasured;

    private MachineStalls() {}

    /** Measures nothing: the figures say the option that would. */
    static MachineStalls off() {
        MachineStalls m = new MachineStalls();
        m.notMeasured = "off (--machine-stalls measures them)";
        return m;
    }

    /** Starts a meter on each CPU this process may use; on failure none runs and {@link #method} says why. */
    static MachineStalls start() {
        MachineStalls m = new MachineStalls();
        try {
            for (int cpu : cpuList(allowedCpus())) {
                m.startMeter(cpu);
            }
        } catch (IOException | RuntimeException e) {
            m.notMeasured = e.getMessage();
            m.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            m.notMeasured = "interrupted while starting";
            m.close();
        }
        return m;
    }

    private void startMeter(int cpu) throws IOException, InterruptedException {
        List<String> cmd = List.of(
                "taskset",
                "-c",
                Integer.toString(cpu),
                "chrt",
                "-f",
                "50",
                ClientJvm.javaBinary(),
                "-Xint",
                "-XX:+UseSerialGC",
                "-Xmx16m",
                "-XX:-UsePerfData",
                "-cp",
                System.getProperty("java.class.path"),
                StallMeter.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        meters.add(p);
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> first = new CompletableFuture<>();
        Thread reader = new Thread(
                () -> {
                    try {
                        first.complete(String.valueOf(r.readLine()));
                        for (String line; (line = r.readLine()) != null; ) {
                            String[] f = line.split(" ");
                            synchronized (stalls) {
                                stalls.add(new Stall(cpu, Long.parseLong(f[0]), Long.parseLong(f[1])));
                            }
                        }
                    } catch (IOException | RuntimeException e) {
                        first.complete(e.toString());
                    }
                },
                "stall-meter-" + cpu);
        reader.setDaemon(true);
        reader.start();
        String line;
        try {
            line = first.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            line = "no answer within " + START_TIMEOUT_SECONDS + " s";
        }
        if (!StallMeter.READY.equals(line)) {
            throw new IllegalStateException("the stall meter on CPU " + cpu + " did not start: " + line);
        }
    }

    /** What measured the stalls, or why nothing did. */
    String method() {
        return notMeasured == null ? METHOD : "not measured: " + notMeasured;
    }

    /** The stalls that began between {@code from} and {@code to} ({@code System.nanoTime}). */
    List<Stall> between(long from, long to) {
        synchronized (stalls) {
            return stalls.stream()
                    .filter(s -> s.fromNanos() >= from && s.fromNanos() <= to)
                    .toList();
        }
    }

    /**
     * A burst's stalls and how many of its slowest claims (those at or above the p99) had one from
     * {@link #BACKLOG_NANOS} before their event until their status write; when not measured, why.
     */
    Map<String, Object> json(long from, long to, List<BurstFigures.Latency> latencies) {
        if (notMeasured != null) return Map.of("not_measured", notMeasured);
        List<Stall> in = between(from - BACKLOG_NANOS, to);
        Map<String, Object> m = new TreeMap<>();
        List<Stall> inBurst = in.stream().filter(s -> s.fromNanos() >= from).toList();
        m.put("count", inBurst.size());
        m.put(
                "total_ms",
                BurstFigures.round(inBurst.stream().mapToLong(Stall::nanos).sum() / 1e6));
        m.put(
                "longest_ms",
                BurstFigures.round(
                        inBurst.stream().mapToLong(Stall::nanos).max().orElse(0) / 1e6));
        List<BurstFigures.Latency> slowest = slowest(latencies);
        m.put("slowest_claims", slowest.size());
        m.put("slowest_claims_near_a_stall", nearAStall(in, slowest));
        return m;
    }

    /** The claims at or above the p99 of their burst. */
    static List<BurstFigures.Latency> slowest(List<BurstFigures.Latency> latencies) {
        if (latencies.isEmpty()) return List.of();
        List<Double> totals =
                latencies.stream().map(BurstFigures.Latency::totalMs).sorted().toList();
        double p99 = BurstFigures.pct(totals, 0.99);
        return latencies.stream().filter(l -> l.totalMs() >= p99).toList();
    }

    /**
     * How many of {@code claims} had a stall from {@link #BACKLOG_NANOS} before their event until
     * their status write.
     */
    static long nearAStall(List<Stall> stalls, List<BurstFigures.Latency> claims) {
        return claims.stream()
                .filter(c -> stalls.stream()
                        .anyMatch(s -> s.toNanos() >= c.fromNanos() - BACKLOG_NANOS && s.fromNanos() <= c.toNanos()))
                .count();
    }

    /** The CPUs this process may run on, as the kernel lists them. */
    static String allowedCpus() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Cpus_allowed_list:"))
                return line.substring(line.indexOf(':') + 1).trim();
        }
        throw new IOException("/proc/self/status has no Cpus_allowed_list");
    }

    /** "0-2,5" → [0, 1, 2, 5], as the kernel writes a CPU list. */
    static List<Integer> cpuList(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String part : list.split(",")) {
            String[] range = part.trim().split("-");
            int first = Integer.parseInt(range[0]);
            int last = range.length == 1 ? first : Integer.parseInt(range[1]);
            if (range.length > 2 || last < first) throw new IllegalArgumentException("not a CPU list: " + list);
            for (int cpu = first; cpu <= last; cpu++) cpus.add(cpu);
        }
        return cpus;
    }

    /** Ends every meter: their standard input closes (they exit), and they are killed if they do not. */
    @Override
    public void close() {
        for (Process p : meters) {
            try {
                p.getOutputStream().close();
            } catch (IOException e) {
                // it is killed below if it did not exit
            }
        }
        for (Process p : meters) {
            try {
                if (!p.waitFor(2, TimeUnit.SECONDS)) p.destroyForcibly().waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        meters.clear();
    }
}
