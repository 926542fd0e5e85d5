package io.sandboxd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The CI regression guard: the quick benchmark against our packaged daemon, started through the
 * launcher with the JVM options the image uses, compared with the committed
 * {@code bench/baseline-quick.json}. Fails when a guarded ratio (each figure divided by a baseline
 * measured in the same run) got more than 3x worse, or when any scenario fails.
 * Refresh the baseline file deliberately: see the README section "Benchmark".
 */
class BenchGuardIT {

    @Test
    void quickBenchmarkDoesNotRegressMoreThan3x() throws Exception {
        Path repo = Path.of(System.getProperty("sandboxd.repoRoot", ".."))
                .toAbsolutePath()
                .normalize();
        Path launcher = repo.resolve("sandboxd");
        Path jar = Path.of(System.getProperty(
                "sandboxd.jar", repo.resolve("daemon/target/sandboxd.jar").toString()));
        Path baseline = Path.of(System.getProperty(
                "bench.baseline", repo.resolve("bench/baseline-quick.json").toString()));
        Path out = Path.of(System.getProperty("bench.out", "target/bench-quick.json"));
        assertThat(jar).as("the daemon jar is built before the bench module").exists();
        assertThat(baseline).as("committed baseline file").exists();

        String[] args = {
            "--start-daemon",
            launcher.toString(),
            "--quick",
            "--json",
            out.toString(),
            "--baseline",
            baseline.toString(),
            "--max-regression",
            "3"
        };
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(buf, true, StandardCharsets.UTF_8);
        long t = System.nanoTime();
        int rc = BenchMain.run(BenchOptions.parse(args), ps);
        String report = buf.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        Files.writeString(out.resolveSibling("bench-quick.txt"), report);
        assertThat(rc).as(report).isZero();
        assertThat(report).contains("Regression guard passed");
        System.out.printf("quick benchmark took %.1f s%n", (System.nanoTime() - t) / 1e9);
    }
}
