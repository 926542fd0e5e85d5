package io.sandboxd.daemon.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The runnable jar and the launcher: start, health 200, SIGTERM, exit 0 (CONTRACT §3). */
class DaemonJarIT {
    @TempDir
    Path tmp;

    private static List<String> javaJar(String... jvmOpts) {
        List<String> c = new ArrayList<>(JarProcess.java());
        c.addAll(List.of(jvmOpts));
        c.addAll(List.of("-jar", JarProcess.jar().toString()));
        return c;
    }

    @Test
    void jarStartsServesAndStopsOnSigtermWithExit0() throws Exception {
        Path root = tmp.resolve("ws");
        Files.createDirectories(root.resolve("d"));
        Files.writeString(root.resolve("d/.sandboxd-upload-0123456789ab-1.tmp"), "stale from a crash");
        try (JarProcess d = JarProcess.start(javaJar(), root, tmp, Map.of("SANDBOX_ID", "sb-7", "SANDBOX_API_KEY", "k"))) {
            long startup = d.awaitHealthy(60);
            Thread.sleep(2000);
            System.out.printf("startup-to-healthy %d ms, idle RSS %d MiB%n",
                    TimeUnit.NANOSECONDS.toMillis(startup), d.rssKiB() / 1024);
            assertThat(d.status("/v1/files/d")).isEqualTo(200);
            assertThat(d.status("/v1/metadata")).isEqualTo(200);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (Files.exists(root.resolve("d/.sandboxd-upload-0123456789ab-1.tmp")) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(root.resolve("d/.sandboxd-upload-0123456789ab-1.tmp")).doesNotExist();
            d.sigterm();
            assertThat(d.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(d.process.exitValue()).isZero();
            assertThat(Files.readString(d.log)).contains("rest GET /v1/files/d status=200");
        }
    }

    @Test
    void launcherScriptStartsTheDaemonAndExits0OnSigterm() throws Exception {
        Path launcher = JarProcess.repoRoot().resolve("sandboxd");
        assertThat(launcher).isExecutable();
        try (JarProcess d = JarProcess.start(List.of(launcher.toString()), tmp.resolve("ws"), tmp,
                Map.of("JAVA_HOME", System.getProperty("java.home")))) {
            d.awaitHealthy(120);
            assertThat(d.status("/v1/files/")).isEqualTo(200);
            d.sigterm();
            assertThat(d.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(d.process.exitValue()).isZero();
        }
    }

    @Test
    void badFlagExits2WithOneLineBeforeListening() throws Exception {
        try (JarProcess d = JarProcess.start(javaJar(), tmp.resolve("ws"), tmp, Map.of(), "--shutdown-timeout", "soon")) {
            assertThat(d.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(d.process.exitValue()).isEqualTo(2);
            List<String> lines = Files.readAllLines(d.log);
            assertThat(lines).hasSize(1);
            assertThat(lines.get(0)).startsWith("sandboxd: ").contains("--shutdown-timeout");
            assertThat(d.status("/v1/health")).isEqualTo(-1);
        }
    }

    @Test
    void versionPrintsAndExits0() throws Exception {
        List<String> c = new ArrayList<>(javaJar());
        c.add("--version");
        Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(out).startsWith("sandboxd, version ");
    }
}
