package io.sandboxd.conformance;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CI's conformance run: our daemon, started from daemon/target/sandboxd.jar on free loopback ports
 * with a temp root and an access token, checked by the shaded suite jar at --level all.
 */
class DaemonConformanceIT {
    static final String TOKEN = "conformance-it-token";
    private Process daemon;

    @AfterEach
    void stopDaemon() throws InterruptedException {
        if (daemon != null) {
            daemon.destroy();
            if (!daemon.waitFor(15, TimeUnit.SECONDS)) {
                daemon.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    static final int NOBODY = 65534;

    static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    @Test
    void ourDaemonPassesEveryCheck(@TempDir Path tmp) throws Exception {
        Path daemonJar = Path.of(System.getProperty("sandboxd.jar", "../daemon/target/sandboxd.jar"));
        Path suiteJar = Path.of(System.getProperty("conformance.jar", "target/sandboxd-conformance.jar"));
        assertThat(daemonJar).as("daemon jar (build the daemon module first)").exists();
        assertThat(suiteJar).as("suite jar").exists();
        // A copy: rebuilding the jar under a running JVM breaks it (toolchain.md §8.4).
        Path jarCopy = Files.copy(daemonJar, tmp.resolve("sandboxd.jar"));
        int grpcPort = freePort();
        int restPort = freePort();
        Path root = Files.createDirectory(tmp.resolve("root"));
        // As root, file permissions cannot be provoked (FS-PUT-012): run the daemon as nobody, as in a Pod.
        List<String> asUser = List.of();
        if (isRoot() && Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(jarCopy, PosixFilePermissions.fromString("rw-r--r--"));
            Files.setAttribute(root, "unix:uid", NOBODY);
            Files.setAttribute(root, "unix:gid", NOBODY);
            asUser = List.of("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups");
        }
        Path daemonLog = Path.of("target", "conformance-it-daemon.log").toAbsolutePath();
        Files.createDirectories(daemonLog.getParent());
        List<String> daemonCmd = new ArrayList<>(asUser);
        daemonCmd.addAll(List.of(java(), "-jar", jarCopy.toString(), "--listen-host", "127.0.0.1",
                "--grpc-port", String.valueOf(grpcPort), "--rest-port", String.valueOf(restPort), "--root-dir", root.toString(),
                "--stream-chunk-size", "1024", "--execute-output-limit", "65536"));
        ProcessBuilder pb = new ProcessBuilder(daemonCmd).redirectErrorStream(true).redirectOutput(daemonLog.toFile());
        Map<String, String> env = pb.environment();
        env.put("SANDBOXD_AUTH_TOKEN", TOKEN);
        env.put("SANDBOX_CONFORMANCE_ID", "sb-123");
        env.put("SANDBOX_MONKEY", "kept: KEY only as a substring");
        env.put("SANDBOX_AUTHOR", "kept: AUTH only as a substring");
        env.put("SANDBOX_API_TOKEN", "withheld");
        env.put("SANDBOX_SSH_KEY", "withheld");
        daemon = pb.start();
        awaitPort(restPort, 60);
        awaitPort(grpcPort, 60);

        Path reports = Path.of("target", "conformance-report").toAbsolutePath();
        Files.createDirectories(reports);
        List<String> cmd = new ArrayList<>(List.of(java(), "-jar", suiteJar.toString(), "--grpc", "127.0.0.1:" + grpcPort,
                "--rest", "http://127.0.0.1:" + restPort, "--level", "all", "--report-dir", reports.toString(), "--token", TOKEN,
                "--stream-chunk-size", "1024", "--execute-output-limit", "65536", "--allow-root-wipe"));
        long t0 = System.nanoTime();
        Process suite = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(suite.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(suite.waitFor(180, TimeUnit.SECONDS)).isTrue();
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
        Files.writeString(reports.resolve("stdout.txt"), output);

        JsonNode report = JsonMapper.builder().build().readTree(reports.resolve("conformance-report.json").toFile());
        Map<String, String> notPassed = new TreeMap<>();
        for (JsonNode c : report.path("checks")) {
            if (!c.path("outcome").stringValue().equals("pass")) {
                notPassed.put(c.path("id").stringValue(), c.path("outcome").stringValue() + ": " + c.path("message").stringValue());
            }
        }
        assertThat(notPassed).as("checks that did not pass (suite output in target/conformance-report/stdout.txt, daemon log in "
                + daemonLog + "):\n" + output).isEmpty();
        assertThat(suite.exitValue()).as(output).isZero();
        assertThat(seconds).as("whole suite duration in seconds").isLessThan(120);
    }

    static void awaitPort(int port, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("the daemon did not listen on port " + port + " within " + seconds + " s (see target/conformance-it-daemon.log)");
    }
}
