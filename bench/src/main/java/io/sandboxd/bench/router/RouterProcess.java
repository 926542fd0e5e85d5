package io.sandboxd.bench.router;

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
import java.util.concurrent.TimeUnit;

/**
 * The router under test, started from its real jar ({@code java [opts] -jar sandboxd-router.jar})
 * as a separate process on a free loopback port: no informer cache (so no Kubernetes API is
 * needed), allow-all authorization, loopback pod IPs allowed (the backend is on loopback), no
 * admin port. Its output goes to a log file that is shown when it fails to start.
 */
final class RouterProcess implements AutoCloseable {
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Process process;
    private final int port;
    private final Path log;

    private RouterProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The command line that starts {@code jar} on {@code port} with {@code ioThreads} event-loop threads. */
    static List<String> command(Path jar, List<String> jvmOpts, int port, int ioThreads) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOpts);
        cmd.addAll(List.of(
                "-jar",
                jar.toString(),
                "--bind",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--admin-port",
                "-1",
                "--no-cache-enabled",
                "--authz-mode",
                "allow-all",
                "--allow-loopback-pod-ip",
                "--io-threads",
                Integer.toString(ioThreads)));
        return cmd;
    }

    /** Starts the router and returns once it answers {@code GET /readyz} with 200. */
    static RouterProcess start(Path jar, List<String> jvmOpts, int ioThreads) throws IOException, InterruptedException {
        int port = freePort();
        Path log = Files.createTempFile("sandboxd-router-bench-", ".log");
        Process p = new ProcessBuilder(command(jar, jvmOpts, port, ioThreads))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        RouterProcess r = new RouterProcess(p, port, log);
        try {
            r.awaitReady();
        } catch (IOException | InterruptedException | RuntimeException e) {
            r.close();
            throw e;
        }
        return r;
    }

    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    long pid() {
        return process.pid();
    }

    private void awaitReady() throws IOException, InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest readyz = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                .timeout(Duration.ofSeconds(5))
                .build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("the router exited with " + process.exitValue()
                        + " before it was ready; its output:\n" + tail());
            }
            try {
                if (http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        "the router was not ready within " + START_TIMEOUT.toSeconds() + " s; its output:\n" + tail());
            }
            Thread.sleep(50);
        }
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(log " + log + " unreadable: " + e + ")";
        }
    }

    /** SIGTERM (the router shuts down through its shutdown hook), SIGKILL after 10 s; removes the log. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            // a temp file; nothing else to do
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }
}
