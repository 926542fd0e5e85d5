package io.sandboxd.bench.controller;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The controller under test, started from its real jar as its own process (so its CPU, RSS and
 * heap are its own) against the API stand-in: {@code --no-leader-elect}, metrics on a free
 * loopback port, fabric8 pointed at the stand-in by system properties. Output goes to a log file.
 */
final class ControllerProcess implements AutoCloseable {
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** /proc/PID/stat counts CPU in clock ticks; 100 per second on Linux. */
    static final double TICKS_PER_SECOND = 100.0;

    private final Process process;
    private final int metricsPort;
    final Path log;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ControllerProcess(Process process, int metricsPort, Path log) {
        this.process = process;
        this.metricsPort = metricsPort;
        this.log = log;
    }

    static List<String> command(Path jar, List<String> jvmOpts, String apiUrl, int metricsPort, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOpts);
        cmd.addAll(List.of(
                "-Dkubernetes.master=" + apiUrl,
                "-Dkubernetes.auth.tryKubeConfig=false",
                "-Dkubernetes.auth.tryServiceAccount=false",
                "-Dkubernetes.namespace=default",
                // A bearer token as in a cluster (the stand-in ignores it): without one, fabric8's token
                // interceptor re-reads its whole configuration before every request (8% of the
                // controller's CPU samples in a JFR profile of a burst).
                "-Dkubernetes.auth.token=sandboxd-bench",
                "-jar",
                jar.toString(),
                "--no-leader-elect",
                "--metrics-bind-address",
                "127.0.0.1:" + metricsPort));
        cmd.addAll(args);
        return cmd;
    }

    static ControllerProcess start(Path jar, List<String> jvmOpts, String apiUrl, List<String> args)
            throws IOException, InterruptedException {
        int port = freePort();
        Path log = Files.createTempFile("sandboxd-controller-bench-", ".log");
        Process p = new ProcessBuilder(command(jar, jvmOpts, apiUrl, port, args))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        ControllerProcess c = new ControllerProcess(p, port, log);
        try {
            c.awaitReady();
        } catch (IOException | InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException(
                        "the controller exited with " + process.exitValue() + "; log:\n" + Files.readString(log));
            }
            try {
                if (get("/readyz").statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new IOException("the controller was not ready within " + START_TIMEOUT.toSeconds() + " s; log:\n"
                + Files.readString(log));
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    long pid() {
        return process.pid();
    }

    /** The whole process's CPU so far, in milliseconds: user plus system, and system alone. */
    record Cpu(double totalMs, double systemMs) {}

    Cpu cpu() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
            return new Cpu(
                    ThreadCpu.ticks(stat) * 1000.0 / TICKS_PER_SECOND,
                    ThreadCpu.systemTicks(stat) * 1000.0 / TICKS_PER_SECOND);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** VmRSS and VmHWM in MiB. */
    double[] rssAndPeakMiB() {
        double rss = -1;
        double hwm = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                } else if (line.startsWith("VmHWM:")) {
                    hwm = Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return new double[] {rss, hwm};
    }

    /** Heap in use (MiB), summed over the heap pools of the controller's own /metrics. */
    double heapUsedMiB() {
        try {
            double sum = 0;
            for (String line : get("/metrics").body().split("\n")) {
                if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return sum / (1024.0 * 1024.0);
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The controller's /metrics as Prometheus text; one scrape serves every figure read from it. */
    String metrics() {
        try {
            return get("/metrics").body();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the controller's /metrics: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the controller's /metrics", e);
        }
    }

    /**
     * Reconciles run so far and the seconds they took, per JOSDK controller name, from the
     * controller's /metrics ({@code reconciliations_execution_duration_seconds}).
     */
    static Map<String, double[]> reconcilesIn(String metrics) {
        String prefix = "reconciliations_execution_duration_seconds_";
        Map<String, double[]> out = new TreeMap<>();
        for (String line : metrics.split("\n")) {
            boolean count = line.startsWith(prefix + "count{");
            if (!count && !line.startsWith(prefix + "sum{")) continue;
            int at = line.indexOf("controller_name=\"");
            if (at < 0) continue;
            String name = line.substring(at + 17, line.indexOf('"', at + 17));
            double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            out.computeIfAbsent(name, k -> new double[2])[count ? 0 : 1] = v;
        }
        return out;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
