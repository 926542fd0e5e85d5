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
        int rc = RouterBenchmark.run(
                new String[] {"--no-such-option"}, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--no-such-option")
                .contains("--concurrency");
    }
}
