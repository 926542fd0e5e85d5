package io.sandboxd.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Measurement (opt-in, {@code -Dsandboxd.bench=true}): wall clock of a whole
 * {@code ./sandboxd-cli exec -- true} process, 50 runs, next to the same Execute through the
 * library in one warm JVM, 50 calls; p50 of each.
 */
@EnabledIfSystemProperty(named = "sandboxd.bench", matches = "true")
class CliLatencyIT {
    static final int RUNS = 50;

    @Test
    void execRoundTripOfTheCliProcessAndOfTheLibrary() throws Exception {
        try (RunningDaemon d = TestDaemons.start("cli-latency");
                SandboxdClient c = TestDaemons.client(d)) {
            Path launcher = DaemonSpec.repoRoot().resolve("sandboxd-cli");
            List<String> cmd = List.of(launcher.toString(), "exec", "--grpc", d.grpcTarget(), "--", "true");
            run(cmd); // records the class-data archive if this jar + JDK has none yet
            for (int i = 0; i < 3; i++) {
                run(cmd);
            }
            double[] cli = new double[RUNS];
            for (int i = 0; i < RUNS; i++) {
                long t = System.nanoTime();
                assertThat(run(cmd)).isZero();
                cli[i] = (System.nanoTime() - t) / 1e6;
            }
            for (int i = 0; i < 300; i++) {
                c.execute("true");
            }
            double[] lib = new double[RUNS];
            for (int i = 0; i < RUNS; i++) {
                long t = System.nanoTime();
                assertThat(c.execute("true").exitCode()).isZero();
                lib[i] = (System.nanoTime() - t) / 1e6;
            }
            System.out.printf(
                    Locale.ROOT,
                    "exec -- true, %d runs: CLI process p50 %.1f ms (p90 %.1f), library in a warm JVM p50 %.2f ms (p90 %.2f)%n",
                    RUNS,
                    p(cli, 50),
                    p(cli, 90),
                    p(lib, 50),
                    p(lib, 90));
        }
    }

    private static int run(List<String> cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().keySet().removeIf(k -> k.startsWith("SANDBOXD_"));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("SANDBOXD_REBUILD", "never");
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    private static double p(double[] v, int pct) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(pct / 100.0 * s.length) - 1)];
    }
}
