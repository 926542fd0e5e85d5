package io.sandboxd.bench.router;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RouterBenchmarkTest {

    @Test
    void theRouterIsStartedFromItsJarOnLoopbackWithoutKubernetes() {
        Path jar = Path.of("router/target/sandboxd-router.jar");
        List<String> cmd = RouterProcess.command(jar, List.of("-XX:+UseSerialGC", "-Xmx64m"), 12345, 3);
        assertThat(cmd.get(0)).endsWith("/bin/java");
        assertThat(cmd.subList(1, cmd.size()))
                .containsExactly(
                        "-XX:+UseSerialGC",
                        "-Xmx64m",
                        "-jar",
                        jar.toString(),
                        "--bind",
                        "127.0.0.1",
                        "--port",
                        "12345",
                        "--admin-port",
                        "-1",
                        "--no-cache-enabled",
                        "--authz-mode",
                        "allow-all",
                        "--allow-loopback-pod-ip",
                        "--io-threads",
                        "3");
    }

    @Test
    void aMissingRouterJarIsAUsageErrorThatSaysHowToBuildIt(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = RouterBenchmark.run(
                new String[] {"--router-jar", dir.resolve("nope.jar").toString()},
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("nope.jar not found")
                .contains("-pl router");
    }

    @Test
    void aMissingDaemonJarIsAUsageErrorUnlessTheGrpcPartIsSkipped(@TempDir Path dir) throws Exception {
        Path fakeRouter = java.nio.file.Files.createFile(dir.resolve("router.jar"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = RouterBenchmark.run(
                new String[] {
                    "--router-jar",
                    fakeRouter.toString(),
                    "--daemon-jar",
                    dir.resolve("nod.jar").toString()
                },
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("nod.jar not found")
                .contains("--no-grpc");
    }

    @Test
    void aMissingBaselineRouterJarIsAUsageError(@TempDir Path dir) throws Exception {
        Path fakeRouter = java.nio.file.Files.createFile(dir.resolve("router.jar"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = RouterBenchmark.run(
                new String[] {
                    "--router-jar",
                    fakeRouter.toString(),
                    "--baseline-router-jar",
                    dir.resolve("old.jar").toString(),
                    "--no-grpc"
                },
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--baseline-router-jar")
                .contains("old.jar not found");
    }

    @Test
    void ratiosCompareEachCellWithDirectAndTheBaselineRouter() {
        List<RouterBenchmark.Row> rows =
                List.of(row("direct", 100_000), row("router", 50_000), row("baseline", 40_000));
        assertThat(RouterBenchmark.ratios(rows)).contains("| GET | 10 | 0.50 | 0.40 | 1.25 |");
        assertThat(RouterBenchmark.ratios(rows.subList(0, 2))).contains("| GET | 10 | 0.50 | – | – |");
        assertThat(RouterBenchmark.median(java.util.stream.DoubleStream.of(3, 1, 2)))
                .isEqualTo(2);
        assertThat(RouterBenchmark.median(java.util.stream.DoubleStream.of(4, 1, 2, 3)))
                .isEqualTo(2.5);
    }

    private static RouterBenchmark.Row row(String target, long requests) {
        return new RouterBenchmark.Row(
                target, "GET", 10, new LoadGenerator.Result(requests, 0, 1.0, new org.HdrHistogram.Histogram(3)));
    }

    @Test
    void aBadDurationIsAUsageError() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = RouterBenchmark.run(
                new String[] {"--duration", "ten seconds"}, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("ten seconds");
    }

    @Test
    void anUnknownOptionIsAUsageError() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = RouterBenchmark.run(new String[] {"--frobnicate"}, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--frobnicate")
                .contains("--concurrency");
    }
}
