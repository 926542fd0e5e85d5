package io.sandboxd.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * CI's conformance run: our daemon, started from daemon/target/sandboxd.jar by testkit's launcher
 * on free loopback ports with a temp root and an access token, checked by the shaded suite jar at
 * --level all.
 */
class DaemonConformanceIT {
    static final String TOKEN = "conformance-it-token";
    static final int NOBODY = 65534;

    static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    /**
     * The daemon's last WARN and ERROR lines (at most 20), or a line saying there were none or
     * that the log could not be read.
     */
    private static String warnings(Path log) {
        List<String> lines;
        try (var all = Files.lines(log, StandardCharsets.UTF_8)) {
            lines = all.filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                    .toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            return "(the daemon's log could not be read: " + e + ")";
        }
        if (lines.isEmpty()) {
            return "(the daemon logged no warning)";
        }
        return "the daemon's last warnings:\n"
                + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }

    @Test
    void ourDaemonPassesEveryCheck(@TempDir Path tmp) throws Exception {
        Path suiteJar = Path.of(System.getProperty("conformance.jar", "target/sandboxd-conformance.jar"));
        assertThat(suiteJar).as("suite jar").exists();
        Path root = Files.createDirectory(tmp.resolve("root"));
        Path state = Files.createDirectory(tmp.resolve("state"));
        DaemonSpec spec = DaemonSpec.packagedJar()
                .withRootDir(root)
                .withAuthToken(TOKEN)
                .withArgs(
                        "--stream-chunk-size",
                        "1024",
                        "--execute-output-limit",
                        "65536",
                        "--attach-heartbeat",
                        "1s",
                        "--timeout-grace",
                        "1s",
                        "--state-dir",
                        state.toString())
                .withEnv("SANDBOX_CONFORMANCE_ID", "sb-123")
                .withEnv("SANDBOX_MONKEY", "kept: KEY only as a substring")
                .withEnv("SANDBOX_AUTHOR", "kept: AUTH only as a substring")
                .withEnv("SANDBOX_API_TOKEN", "withheld")
                .withEnv("SANDBOX_SSH_KEY", "withheld")
                .withLogName("conformance-it-daemon");
        // As root, file permissions cannot be provoked (FS-PUT-012): run the daemon as nobody, as in a Pod.
        if (isRoot() && Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setAttribute(root, "unix:uid", NOBODY);
            Files.setAttribute(root, "unix:gid", NOBODY);
            Files.setAttribute(state, "unix:uid", NOBODY); // the durable journal's directory is the daemon's too
            Files.setAttribute(state, "unix:gid", NOBODY);
            spec = spec.withWrapper("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups");
        }
        try (RunningDaemon daemon = spec.start()) {
            String daemonLog = daemon.stdoutLog() + " and " + daemon.stderrLog();
            Path reports = Path.of("target", "conformance-report").toAbsolutePath();
            Files.createDirectories(reports);
            List<String> cmd = new ArrayList<>(List.of(
                    java(),
                    "-jar",
                    suiteJar.toString(),
                    "--grpc",
                    daemon.grpcTarget(),
                    "--rest",
                    daemon.restBase(),
                    "--level",
                    "all",
                    "--report-dir",
                    reports.toString(),
                    "--token",
                    TOKEN,
                    "--stream-chunk-size",
                    "1024",
                    "--execute-output-limit",
                    "65536",
                    "--attach-heartbeat",
                    "1s",
                    "--allow-root-wipe"));
            long t0 = System.nanoTime();
            Process suite = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(suite.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(suite.waitFor(180, TimeUnit.SECONDS)).isTrue();
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
            Files.writeString(reports.resolve("stdout.txt"), output);

            JsonNode report = JsonMapper.builder()
                    .build()
                    .readTree(reports.resolve("conformance-report.json").toFile());
            Map<String, String> notPassed = new TreeMap<>();
            for (JsonNode c : report.path("checks")) {
                if (!c.path("outcome").stringValue().equals("pass")) {
                    notPassed.put(
                            c.path("id").stringValue(),
                            c.path("outcome").stringValue() + ": "
                                    + c.path("message").stringValue());
                }
            }
            // Built only on a failure. The daemon's warnings come first: a CI report shows the head
            // and the tail of this text, and the suite's output in between may be cut.
            assertThat(notPassed)
                    .as(() -> "checks that did not pass (suite output in target/conformance-report/stdout.txt, daemon"
                            + " log in " + daemonLog + ")\n" + warnings(daemon.stderrLog()) + "\n" + output)
                    .isEmpty();
            assertThat(suite.exitValue()).as(output).isZero();
            assertThat(seconds).as("whole suite duration in seconds").isLessThan(120);
        }
    }
}
