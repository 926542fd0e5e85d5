package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.DaemonStartException;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ResourceSnapshot;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The testkit launcher with the real daemon: the jar and the ./sandboxd launcher script. */
class RealDaemonLauncherTest {
    @Test
    void theJarStartsReadyIsObservableAndStopsGracefullyWithZero() throws Exception {
        RunningDaemon d = TestDaemons.start("launcher-jar");
        try (SandboxdClient c = TestDaemons.client(d)) {
            assertThat(c.health().status()).isEqualTo("ok");
            assertThat(c.execute("true").exitCode()).isZero();
            assertThat(d.jvmPid()).isEqualTo(d.pid());
            ResourceSnapshot s = d.observer().snapshotWithHeap();
            assertThat(s.threads()).isGreaterThan(5);
            assertThat(s.fds()).isGreaterThan(5);
            assertThat(s.heapAfterGcBytes()).isPresent();
            assertThat(s.liveDescendants()).isZero();
            assertThat(d.readyAfter()).isPositive();
        }
        long t = System.nanoTime();
        assertThat(d.stop(Duration.ofSeconds(20)))
                .as("graceful SIGTERM: exit 0")
                .isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - t)).isLessThan(Duration.ofSeconds(15));
        assertThat(d.stderr()).as("the request log").contains("Execute");
        d.close();
        assertThat(d.rootDir())
                .as("the launcher's temporary root goes with the daemon")
                .doesNotExist();
    }

    @Test
    void aBadFlagExitsTwoBeforeReady() {
        assertThatThrownBy(() -> TestDaemons.spec("launcher-bad-flag")
                        .withArgs("--max-processes", "many")
                        .start())
                .isInstanceOfSatisfying(DaemonStartException.class, e -> assertThat(e.exitCode())
                        .isEqualTo(OptionalInt.of(2)));
    }

    @Test
    void theLauncherScriptExecsTheJvm() throws Exception {
        try (RunningDaemon d = DaemonSpec.repoLauncher()
                        .withEnv("SANDBOXD_CDS", "off")
                        .withEnv("SANDBOXD_REBUILD", "never")
                        .withJvmOptions("-Xmx128m")
                        .withLogName("launcher-script")
                        .start();
                SandboxdClient c = TestDaemons.client(d)) {
            assertThat(c.execute("echo", "via script").stdoutText()).isEqualTo("via script\n");
            assertThat(d.observer().isJvm())
                    .as("the script exec'd java: same pid")
                    .isTrue();
            assertThat(d.observer().cmdline()).contains("-Xmx128m", "-XX:+UseSerialGC");
        }
    }
}
