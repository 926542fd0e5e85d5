package io.sandboxd.router.testing;

import io.sandboxd.testkit.FreePorts;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The router in its own JVM (RouterMain from the test class path) on a free loopback port, with the
 * JVM flags a test needs (e.g. 64 MiB heap + 64 MiB direct memory: only a streaming router passes).
 */
public final class RouterProcess implements AutoCloseable {
    public final Process process;
    public final int port;
    public final Path log;

    private RouterProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    public static RouterProcess start(List<String> jvmArgs, String... routerArgs) throws Exception {
        int port = FreePorts.pick();
        Path log = Files.createTempFile("router-process", ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                "io.sandboxd.router.cli.RouterMain",
                "--bind",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--admin-port",
                "-1"));
        cmd.addAll(List.of(routerArgs));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            try {
                if (http.send(
                                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                                                .build(),
                                        BodyHandlers.discarding())
                                .statusCode()
                        == 200) {
                    return new RouterProcess(p, port, log);
                }
            } catch (IOException e) {
                // not up yet
            }
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IllegalStateException("router did not start:\n" + Files.readString(log));
            }
            Thread.sleep(100);
        }
    }

    /** A field of /proc/PID/status in KiB, e.g. VmRSS or VmHWM (peak). */
    public long statusKib(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return -1;
    }

    public String output() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
