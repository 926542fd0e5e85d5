package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runnable jar and the launcher: start, health 200, SIGTERM, exit 0 (runtime-contract §3). */
class DaemonJarIT {
    @TempDir
    Path tmp;

    private static int status(RunningDaemon d, String path) throws Exception {
        return RawHttp.exchange("127.0.0.1", d.restPort(), RawRequest.get(path).closing(), Duration.ofSeconds(5))
                .status();
    }

    @Test
    void jarStartsServesAndStopsOnSigtermWithExit0() throws Exception {
        Path root = tmp.resolve("ws");
        Files.createDirectories(root.resolve("d"));
        Files.writeString(root.resolve("d/.sandboxd-upload-0123456789ab-1.tmp"), "stale from a crash");
        try (RunningDaemon d = DaemonSpec.packagedJar()
                .withRootDir(root)
                .withEnv("SANDBOX_ID", "sb-7")
                .withEnv("SANDBOX_API_KEY", "k")
                .withReadyTimeout(Duration.ofSeconds(60))
                .withLogs(tmp, "daemon")
                .start()) {
            long startup = d.readyAfter().toNanos();
            // no token given at all: the only way to run without auth, and the line says so
            assertThat(TokenSecrecyIT.startupLine(d)).endsWith(" auth=off processes-run-as=daemon-user");
            Thread.sleep(2000);
            System.out.printf(
                    "startup-to-healthy %d ms, idle RSS %d MiB%n",
                    TimeUnit.NANOSECONDS.toMillis(startup), d.observer().rssBytes() / 1024 / 1024);
            assertThat(status(d, "/v1/files/d")).isEqualTo(200);
            assertThat(status(d, "/v1/metadata")).isEqualTo(200);
            Poll.until(
                    Duration.ofSeconds(20), () -> !Files.exists(root.resolve("d/.sandboxd-upload-0123456789ab-1.tmp")));
            assertThat(root.resolve("d/.sandboxd-upload-0123456789ab-1.tmp")).doesNotExist();
            d.signal("TERM");
            assertThat(d.awaitExit(Duration.ofSeconds(30))).hasValue(0);
            assertThat(d.stdout() + d.stderr()).contains("rest GET /v1/files/d status=200");
        }
    }

    @Test
    void launcherScriptStartsTheDaemonAndExits0OnSigterm() throws Exception {
        Path launcher = DaemonSpec.repoRoot().resolve("sandboxd");
        assertThat(launcher).isExecutable();
        // the launcher gets JAVA_HOME = this JVM's java.home from DaemonSpec
        try (RunningDaemon d = DaemonSpec.launcherScript(launcher)
                .withRootDir(tmp.resolve("ws"))
                .withReadyTimeout(Duration.ofSeconds(120))
                .withLogs(tmp, "daemon")
                .start()) {
            assertThat(status(d, "/v1/files/")).isEqualTo(200);
            d.signal("TERM");
            assertThat(d.awaitExit(Duration.ofSeconds(30))).hasValue(0);
        }
    }

    @Test
    void badFlagExits2WithOneLineBeforeListening() throws Exception {
        try (RunningDaemon d = DaemonSpec.packagedJar()
                .withRootDir(tmp.resolve("ws"))
                .withArgs("--shutdown-timeout", "soon")
                .withLogs(tmp, "daemon")
                .launch()) {
            assertThat(d.awaitExit(Duration.ofSeconds(60))).hasValue(2);
            // stdout and stderr together, as the old merged log
            List<String> lines =
                    Stream.concat(d.stdout().lines(), d.stderr().lines()).toList();
            assertThat(lines).hasSize(1);
            assertThat(lines.get(0)).startsWith("sandboxd: ").contains("--shutdown-timeout");
            assertThat(d.healthStatus()).isEqualTo(-1);
        }
    }

    /** Issue 16: auth never fails open; a blank token from the environment stops the daemon before it listens. */
    @Test
    void blankTokenInTheEnvironmentExits2WithOneLine() throws Exception {
        try (RunningDaemon d = DaemonSpec.packagedJar()
                .withRootDir(tmp.resolve("ws"))
                .withEnv("SANDBOXD_AUTH_TOKEN", " \t ")
                .withLogs(tmp, "blank-token")
                .launch()) {
            assertThat(d.awaitExit(Duration.ofSeconds(60))).hasValue(2);
            List<String> lines =
                    Stream.concat(d.stdout().lines(), d.stderr().lines()).toList();
            assertThat(lines).hasSize(1);
            assertThat(lines.get(0))
                    .isEqualTo("sandboxd: SANDBOXD_AUTH_TOKEN is set but blank:"
                            + " refusing to start without auth (see --help)");
            assertThat(d.healthStatus()).isEqualTo(-1);
        }
    }

    @Test
    void versionPrintsAndExits0() throws Exception {
        // DaemonSpec always adds the port and root flags: the bare --version runs by hand
        String jar = System.getProperty("sandboxd.jar", "target/sandboxd.jar");
        assertThat(Path.of(jar)).as("packaged jar (run mvn package first)").isRegularFile();
        List<String> c =
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar, "--version");
        Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(out).startsWith("sandboxd, version ");
    }
}
