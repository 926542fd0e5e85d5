package io.sandboxd.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.testkit.proc.HeapProbe;
import io.sandboxd.testkit.proc.ProcStat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher against {@link FakeDaemon}, a real JVM process on real ports. */
class DaemonSpecTest {
    @TempDir
    Path tmp;

    private DaemonSpec fake(String... args) {
        return DaemonSpec.mainClass(System.getProperty("java.class.path"), FakeDaemon.class.getName())
                .withJvmOptions("-Xmx32m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
                .withLogs(tmp.resolve("logs"), "fake")
                .withArgs(args);
    }

    @Test
    void startWaitsUntilHealthAnswers200AndPassesPortsRootAndArgs() throws Exception {
        try (RunningDaemon d = fake("--healthy-after-ms", "700", "--x", "1")
                .withRootDir(tmp.resolve("root"))
                .start()) {
            assertThat(d.readyAfter()).isGreaterThanOrEqualTo(Duration.ofMillis(700));
            assertThat(d.acceptingAfter()).isLessThan(d.readyAfter());
            assertThat(d.healthStatus()).isEqualTo(200);
            assertThat(d.grpcPort()).isNotEqualTo(d.restPort());
            assertThat(d.grpcTarget()).isEqualTo("127.0.0.1:" + d.grpcPort());
            assertThat(d.restBase()).isEqualTo("http://127.0.0.1:" + d.restPort());
            assertThat(d.stdout())
                    .contains("ports " + d.grpcPort() + " " + d.restPort())
                    .contains("root=" + tmp.resolve("root"))
                    .contains("extra=--x 1 ");
            assertThat(d.rootDir()).isDirectory();
            assertThat(d.stderr()).contains("fake: listening").doesNotContain("ports ");
        }
    }

    @Test
    void aFreshTemporaryRootWhenNoneIsGivenIsDeletedByClose() throws Exception {
        Path root;
        try (RunningDaemon d = fake().start()) {
            root = d.rootDir();
            assertThat(root).isDirectory().isEmptyDirectory();
            assertThat(d.stdout()).contains("root=" + root);
            Files.createDirectories(root.resolve("a/b"));
            Files.writeString(root.resolve("a/b/f"), "x");
            Files.createSymbolicLink(root.resolve("a/escape"), tmp);
        }
        assertThat(root).doesNotExist();
        assertThat(tmp).as("a symlink is removed, not followed").isDirectory();
        Path given = Files.createDirectories(tmp.resolve("given"));
        try (RunningDaemon d = fake().withRootDir(given).start()) {
            assertThat(d.rootDir()).isEqualTo(given);
        }
        assertThat(given).as("a given root is the caller's").isDirectory();
    }

    @Test
    void usesGivenPorts() throws Exception {
        int[] ports = FreePorts.pick(2);
        try (RunningDaemon d = fake().withPorts(ports[0], ports[1]).start()) {
            assertThat(d.grpcPort()).isEqualTo(ports[0]);
            assertThat(d.restPort()).isEqualTo(ports[1]);
            assertThat(d.stdout()).contains("ports " + ports[0] + " " + ports[1]);
        }
    }

    @Test
    void jvmOptionsEnvAndTokenReachTheDaemonAndInheritedSandboxdVariablesDoNot() throws Exception {
        // surefire sets SANDBOXD_STRAY_FOR_TEST in this JVM's environment (pom.xml).
        assertThat(System.getenv("SANDBOXD_STRAY_FOR_TEST")).isEqualTo("stray");
        try (RunningDaemon d = fake().withJvmOptions("-Dfake.marker=m1", "-Xmx32m")
                .withEnv("FAKE_A", "a")
                .withAuthToken("t0k")
                .start()) {
            assertThat(d.stdout())
                    .contains("property fake.marker=m1")
                    .contains("env FAKE_A=a")
                    .contains("env SANDBOXD_AUTH_TOKEN=t0k")
                    .doesNotContain("SANDBOXD_STRAY_FOR_TEST");
            assertThat(d.observer().cmdline()).contains("-Dfake.marker=m1").doesNotContain("t0k");
        }
        try (RunningDaemon d = fake().withInheritedSandboxdEnv(true).start()) {
            assertThat(d.stdout()).contains("env SANDBOXD_STRAY_FOR_TEST=stray");
        }
    }

    @Test
    void stopSendsSigtermAndReturnsTheDaemonsOwnExitCode() throws Exception {
        RunningDaemon d = fake().start();
        long t = System.nanoTime();
        assertThat(d.stop(Duration.ofSeconds(20))).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - t)).isLessThan(Duration.ofSeconds(10));
        assertThat(d.stderr()).contains("fake: stopping");
        assertThat(d.isAlive()).isFalse();
        assertThat(d.exitCode()).isEqualTo(OptionalInt.of(0));
    }

    @Test
    void stopSendsSigkillWhenSigtermIsIgnoredPastTheGrace() throws Exception {
        RunningDaemon d = fake("--ignore-sigterm").start();
        long t = System.nanoTime();
        assertThat(d.stop(Duration.ofMillis(800))).isEqualTo(137);
        assertThat(Duration.ofNanos(System.nanoTime() - t)).isGreaterThanOrEqualTo(Duration.ofMillis(800));
        assertThat(d.stderr()).contains("fake: ignoring SIGTERM").doesNotContain("fake: stopping");
    }

    @Test
    void stopKillsTheDescendantsTheDaemonLeaves() throws Exception {
        RunningDaemon d = fake("--spawn-child", "1000").start();
        long child = Long.parseLong(d.stdout()
                .lines()
                .filter(l -> l.startsWith("child "))
                .findFirst()
                .orElseThrow()
                .substring(6));
        assertThat(d.observer().descendants()).extracting(ProcStat::pid).contains(child);
        d.stop();
        assertThat(Poll.until(
                        Duration.ofSeconds(10),
                        // One lookup: the child may be reaped between two.
                        () -> !ProcessHandle.of(child)
                                .map(ProcessHandle::isAlive)
                                .orElse(false)))
                .as("child sleep killed")
                .isTrue();
    }

    @Test
    void signalSendsTheNamedSignal() throws Exception {
        RunningDaemon d = fake("--ignore-sigterm").start();
        try {
            d.signal("TERM");
            Poll.await(Duration.ofSeconds(10), () -> d.stderr().contains("fake: ignoring SIGTERM"), d::stderr);
            assertThat(d.isAlive()).isTrue();
            d.signal("KILL");
            assertThat(d.awaitExit(Duration.ofSeconds(10))).isEqualTo(OptionalInt.of(137));
        } finally {
            d.killTree();
        }
        assertThatThrownBy(() -> d.signal("TERM; rm -rf /")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void daemonThatExitsBeforeReadyFailsStartWithItsExitCodeAndLog() {
        assertThatThrownBy(() -> fake("--fail-with", "2").start())
                .isInstanceOfSatisfying(DaemonStartException.class, e -> {
                    assertThat(e.exitCode()).isEqualTo(OptionalInt.of(2));
                    assertThat(e.portTaken()).isFalse();
                    assertThat(e.getMessage()).contains("exited with 2").contains("fake: bad flag --nope");
                });
    }

    @Test
    void launchDoesNotWaitAndAwaitExitReportsTheCode() throws Exception {
        RunningDaemon d = fake("--fail-with", "3").launch();
        assertThat(d.awaitExit(Duration.ofSeconds(30))).isEqualTo(OptionalInt.of(3));
        assertThat(d.stderr()).contains("fake: bad flag");
    }

    @Test
    void aPortReportedTakenIsPickedAgain() throws Exception {
        Path marker = tmp.resolve("taken-once");
        try (RunningDaemon d = fake("--port-taken-once", marker.toString()).start()) {
            assertThat(marker).exists();
            assertThat(d.healthStatus()).isEqualTo(200);
            assertThat(d.stderr()).contains("Address already in use").contains("fake: listening");
        }
    }

    @Test
    void notReadyInTimeFailsAndKillsTheDaemon() throws Exception {
        DaemonSpec spec = fake("--healthy-after-ms", "600000").withReadyTimeout(Duration.ofMillis(1500));
        long before = System.nanoTime();
        assertThatThrownBy(spec::start).isInstanceOfSatisfying(DaemonStartException.class, e -> {
            assertThat(e.exitCode()).isEmpty();
            assertThat(e.getMessage()).contains("not ready within").contains("ports accepting");
        });
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
        String pidLine = Files.readString(spec.stdoutLog());
        assertThat(pidLine).contains("ports ");
        // Killed: nothing listens on its REST port any more.
        int rest = Integer.parseInt(pidLine.lines()
                .filter(l -> l.startsWith("ports "))
                .findFirst()
                .orElseThrow()
                .split(" ")[2]);
        assertThat(Poll.until(Duration.ofSeconds(10), () -> !accepts(rest))).isTrue();
    }

    @Test
    void openFileLimitAppliesToTheDaemonItself() throws Exception {
        try (RunningDaemon d = fake().withOpenFileLimit(321).start()) {
            assertThat(d.observer().isJvm()).as("sh execs the JVM: same pid").isTrue();
            String limits = Files.readString(Path.of("/proc", Long.toString(d.pid()), "limits"));
            assertThat(limits.lines()
                            .filter(l -> l.startsWith("Max open files"))
                            .findFirst()
                            .orElseThrow())
                    .contains(" 321 ");
        }
    }

    @Test
    void launcherScriptGetsJvmOptionsAndJavaHomeAndExecsTheJvm() throws Exception {
        Path script = tmp.resolve("fake-launcher");
        Files.writeString(
                script,
                "#!/bin/sh\nexec \"$JAVA_HOME/bin/java\" $SANDBOXD_JAVA_OPTS -cp '"
                        + System.getProperty("java.class.path") + "' " + FakeDaemon.class.getName() + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        try (RunningDaemon d = DaemonSpec.launcherScript(script)
                .withJvmOptions("-Dfake.marker=viaScript", "-Xmx32m")
                .withLogs(tmp, "script")
                .start()) {
            assertThat(d.stdout()).contains("property fake.marker=viaScript").contains("env SANDBOXD_JAVA_OPTS=");
            assertThat(d.jvmPid()).isEqualTo(d.pid());
            assertThat(HeapProbe.isJvm(d.pid())).isTrue();
        }
    }

    @Test
    void missingJarIsReportedWithTheBuildCommand() {
        assertThatThrownBy(() -> DaemonSpec.jar(tmp.resolve("nope.jar")).start())
                .hasMessageContaining("nope.jar")
                .hasMessageContaining("./mvnw");
    }

    @Test
    void packagedJarComesFromTheSystemPropertyElseTheRepository() {
        String old = System.getProperty("sandboxd.jar");
        try {
            System.setProperty("sandboxd.jar", "/x/y.jar");
            assertThat(DaemonSpec.packagedJar().toString()).contains("/x/y.jar");
            System.clearProperty("sandboxd.jar");
            assertThat(DaemonSpec.packagedJar().toString())
                    .contains(DaemonSpec.repoRoot()
                            .resolve("daemon/target/sandboxd.jar")
                            .toString());
            assertThat(DaemonSpec.repoRoot().resolve("proto")).isDirectory();
        } finally {
            if (old == null) {
                System.clearProperty("sandboxd.jar");
            } else {
                System.setProperty("sandboxd.jar", old);
            }
        }
    }

    @Test
    void specsAreImmutable() {
        DaemonSpec base = fake("--a");
        DaemonSpec more = base.withArgs("--b").withEnv("K", "V");
        assertThat(base.args()).containsExactly("--a");
        assertThat(more.args()).containsExactly("--a", "--b");
        assertThat(List.copyOf(base.jvmOptions())).doesNotContain("--b");
    }

    private static boolean accepts(int port) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
