package io.sandboxd.daemon.cli;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Starts the packaged daemon (jar or launcher) as a real process on free loopback ports. */
final class JarProcess implements AutoCloseable {
    final Process process;
    final int restPort;
    final int grpcPort;
    final Path log;
    final long startedNanos;

    private JarProcess(Process process, int restPort, int grpcPort, Path log, long startedNanos) {
        this.process = process;
        this.restPort = restPort;
        this.grpcPort = grpcPort;
        this.log = log;
        this.startedNanos = startedNanos;
    }

    static Path jar() {
        Path jar = Path.of(System.getProperty("sandboxd.jar", "target/sandboxd.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("packaged jar missing: " + jar + " (run mvn package first)");
        }
        return jar;
    }

    static Path repoRoot() {
        return Path.of(System.getProperty("sandboxd.repoRoot", ".."));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static List<String> java() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** @param prefix the command up to the daemon's own arguments (java -jar X, or the launcher) */
    static JarProcess start(List<String> prefix, Path root, Path logDir, Map<String, String> env, String... extra)
            throws IOException {
        int rest = freePort();
        int grpc = freePort();
        while (grpc == rest) {
            grpc = freePort();
        }
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of("--root-dir", root.toString(), "--listen-host", "127.0.0.1",
                "--rest-port", String.valueOf(rest), "--grpc-port", String.valueOf(grpc)));
        cmd.addAll(List.of(extra));
        Path log = Files.createTempFile(logDir, "daemon", ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        long t0 = System.nanoTime();
        return new JarProcess(pb.start(), rest, grpc, log, t0);
    }

    int status(String path) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + restPort + path).toURL().openConnection();
            c.setConnectTimeout(1000);
            c.setReadTimeout(5000);
            int code = c.getResponseCode();
            c.disconnect();
            return code;
        } catch (IOException e) {
            return -1;
        }
    }

    /** @return nanoseconds from exec until health answered 200 */
    long awaitHealthy(long timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("daemon exited with " + process.exitValue() + ": " + Files.readString(log));
            }
            if (status("/v1/health") == 200) {
                return System.nanoTime() - startedNanos;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("daemon not healthy in time: " + Files.readString(log));
    }

    long rssKiB() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.replaceAll("\\D+", ""));
            }
        }
        return -1;
    }

    void sigterm() throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-TERM", String.valueOf(process.pid())).start();
        k.waitFor();
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
