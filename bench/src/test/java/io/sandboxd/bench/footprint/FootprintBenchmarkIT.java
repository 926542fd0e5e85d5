package io.sandboxd.bench.footprint;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The footprint mode end to end with small counts: two variants of the packaged jar started in
 * turn, and a running daemon measured as a "target" the way another runtime would be.
 */
class FootprintBenchmarkIT {
    private static final Path REPO = Path.of(System.getProperty("sandboxd.repoRoot", ".."))
            .toAbsolutePath()
            .normalize();
    private static final Path JAR = REPO.resolve("daemon/target/sandboxd.jar");

    @Test
    void coldStartsOfTwoVariantsWithBreakdownAndCpu(@TempDir Path tmp) throws Exception {
        Path json = tmp.resolve("fp.json");
        String out = run(
                "--start-daemon",
                JAR.toString(),
                "--jvm-opts",
                "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k -Xms8m",
                "--variant",
                "base=",
                "--variant",
                "arena2=MALLOC_ARENA_MAX=2",
                "--starts",
                "2",
                "--calls",
                "5",
                "--warm-calls",
                "10",
                "--idle-ms",
                "200",
                "--json",
                json.toString());
        assertThat(out).contains("footprint (load", "java heap", "thread stacks");
        JsonObject v =
                JsonParser.parseString(Files.readString(json)).getAsJsonObject().getAsJsonObject("variants");
        for (String name : new String[] {"base", "arena2"}) {
            JsonObject s = v.getAsJsonObject(name);
            assertThat(s.get("n").getAsInt()).isEqualTo(2);
            double health = p50(s, "health_ms");
            double first = p50(s, "first_execute_ms");
            assertThat(health).isPositive();
            assertThat(first).isGreaterThanOrEqualTo(health);
            double pd = p50(s, "idle_private_dirty_mb");
            double rss = p50(s, "idle_vmrss_mb");
            assertThat(pd).isPositive().isLessThan(rss);
            JsonObject by = s.getAsJsonObject("smaps_breakdown_p50");
            // jcmd named the JVM's ranges: the heap and libjvm are found, and the parts add up to the RSS.
            assertThat(by.getAsJsonObject("java heap").get("rss_mb").getAsDouble())
                    .isPositive();
            assertThat(by.getAsJsonObject("libjvm").get("rss_mb").getAsDouble()).isPositive();
            assertThat(by.getAsJsonObject("thread stacks").get("rss_mb").getAsDouble())
                    .isPositive();
            assertThat(p50(s, "metaspace_committed_mb")).isPositive();
            assertThat(p50(s, "warm_cpu_ms_per_call")).isGreaterThanOrEqualTo(0);
            assertThat(p50(s, "idle_threads")).isGreaterThan(1);
        }
    }

    @Test
    void measuresARunningRuntimeGivenItsAddressAndPid(@TempDir Path tmp) throws Exception {
        Path json = tmp.resolve("target.json");
        try (RunningDaemon d = DaemonSpec.jar(JAR)
                .withJvmOptions("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                .withRootDir(tmp.resolve("root"))
                .start()) {
            String out = run(
                    "--target-address",
                    d.grpcTarget(),
                    "--target-pid",
                    Long.toString(d.jvmPid()),
                    "--starts",
                    "2",
                    "--calls",
                    "5",
                    "--warm-calls",
                    "5",
                    "--idle-ms",
                    "100",
                    "--json",
                    json.toString());
            assertThat(out).contains("target " + d.grpcTarget());
            JsonObject t = JsonParser.parseString(Files.readString(json))
                    .getAsJsonObject()
                    .getAsJsonObject("target");
            assertThat(t.get("n").getAsInt()).isEqualTo(2);
            assertThat(t.has("health_ms"))
                    .as("no start-up figures for a runtime we did not start")
                    .isFalse();
            assertThat(p50(t, "idle_vmrss_mb")).isPositive();
            assertThat(d.isAlive()).isTrue();
        }
    }

    @Test
    void badOptionsExitTwo() {
        assertThat(FootprintBenchmark.run(new String[] {"--starts", "x", "--start-daemon", "y"}, System.out))
                .isEqualTo(2);
    }

    private static double p50(JsonObject s, String key) {
        return s.getAsJsonObject(key).get("p50").getAsDouble();
    }

    private static String run(String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = FootprintBenchmark.run(args, new PrintStream(buf, true, StandardCharsets.UTF_8));
        String out = buf.toString(StandardCharsets.UTF_8);
        System.out.println(out);
        assertThat(rc).as(out).isZero();
        return out;
    }
}
