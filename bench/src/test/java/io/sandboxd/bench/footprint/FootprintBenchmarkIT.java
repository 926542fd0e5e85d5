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

    /**
     * Also the CI guard: the launcher (./sandboxd, as deployed, with its class-data archive) and
     * the committed {@code bench/baseline-footprint.json}; start-up as a ratio to a trivial Java
     * program and cold over warm CPU may get 3x worse, idle Private_Dirty 1.25x, each re-measured
     * once before the test fails. Refresh the baseline deliberately (README, Footprint).
     */
    @Test
    void coldStartsOfTwoVariantsWithBreakdownCpuAndTheGuard(@TempDir Path tmp) throws Exception {
        Path json = Path.of(System.getProperty("bench.footprint.out", "target/footprint-guard.json"));
        Path baseline = Path.of(System.getProperty(
                "bench.footprint.baseline",
                REPO.resolve("bench/baseline-footprint.json").toString()));
        String out = run(
                "--start-daemon",
                REPO.resolve("sandboxd").toString(),
                "--variant",
                "default=",
                "--variant",
                "arena2=MALLOC_ARENA_MAX=2",
                "--starts",
                "2",
                "--calls",
                "200",
                "--warm-calls",
                "300",
                "--idle-ms",
                "500",
                "--baseline",
                baseline.toString(),
                "--json",
                json.toString());
        assertThat(out).contains("footprint (load", "java heap", "thread stacks", "Footprint guard passed");
        JsonObject report = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
        assertThat(report.get("trivial_java_ms").getAsDouble()).isPositive();
        JsonObject v = report.getAsJsonObject("variants");
        for (String name : new String[] {"default", "arena2"}) {
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
            // jcmd named the JVM's ranges: heap, archive and libjvm are found.
            assertThat(by.getAsJsonObject("java heap").get("rss_mb").getAsDouble())
                    .isPositive();
            assertThat(by.getAsJsonObject("CDS/AOT archive").get("rss_mb").getAsDouble())
                    .isPositive();
            assertThat(by.getAsJsonObject("libjvm").get("rss_mb").getAsDouble()).isPositive();
            assertThat(by.getAsJsonObject("thread stacks").get("rss_mb").getAsDouble())
                    .isPositive();
            assertThat(p50(s, "metaspace_committed_mb")).isPositive();
            assertThat(p50(s, "warm_cpu_ms_per_call")).isGreaterThanOrEqualTo(0);
            assertThat(p50(s, "idle_threads")).isGreaterThan(1);
        }
    }

    /**
     * The framework floors (issue 22) in turn with the launcher: each answers health (and the
     * Netty floor Execute and 20 live Start streams), and starts on its own class-data archive.
     */
    @Test
    void floorsStartOnTheirOwnArchivesInTurnWithTheDaemon(@TempDir Path tmp) throws Exception {
        Path json = tmp.resolve("floors.json");
        String out = run(
                "--start-daemon",
                REPO.resolve("sandboxd").toString(),
                "--floor",
                "jdk",
                "--floor",
                "netty",
                "--starts",
                "1",
                "--calls",
                "5",
                "--warm-calls",
                "5",
                "--idle-ms",
                "100",
                "--class-counts",
                "1",
                "--streams",
                "20",
                "--json",
                json.toString());
        assertThat(out).contains("floor-netty: recording its class-data archive", "classes loaded by the first health");
        JsonObject report = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
        JsonObject v = report.getAsJsonObject("variants");
        JsonObject jdk = v.getAsJsonObject("floor-jdk");
        JsonObject netty = v.getAsJsonObject("floor-netty");
        assertThat(p50(jdk, "health_ms")).isPositive();
        assertThat(p50(jdk, "startup_cpu_ms")).isGreaterThanOrEqualTo(0);
        assertThat(p50(netty, "first_execute_ms")).isGreaterThanOrEqualTo(p50(netty, "health_ms"));
        assertThat(p50(netty, "streams_vmrss_mb")).isPositive();
        assertThat(p50(netty, "idle_vmrss_mb")).isGreaterThan(p50(jdk, "idle_vmrss_mb"));
        JsonObject classes = report.getAsJsonObject("classes_at_first_health");
        JsonObject nettyClasses = classes.getAsJsonObject("floor-netty");
        int nettyJdk = nettyClasses.getAsJsonObject("byGroup").get("JDK").getAsInt();
        assertThat(nettyClasses.getAsJsonObject("byGroup").get("io.netty").getAsInt())
                .isPositive();
        // more classes from archives than the JDK's own: the floor's recorded archive is mapped
        assertThat(nettyClasses.get("fromArchive").getAsInt()).isGreaterThan(nettyJdk);
        assertThat(classes.getAsJsonObject("floor-jdk")
                        .getAsJsonObject("byGroup")
                        .has("io.netty"))
                .isFalse();
    }

    @Test
    void guardFailsAgainstABaselineThatCannotBeMet(@TempDir Path tmp) throws Exception {
        Path baseline = tmp.resolve("impossible.json");
        Files.writeString(baseline, "{\"guard\": {\"idle_private_dirty_mb\": 1.0}}");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = FootprintBenchmark.run(
                new String[] {
                    "--start-daemon",
                    JAR.toString(),
                    "--jvm-opts",
                    "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xms8m",
                    "--starts",
                    "1",
                    "--calls",
                    "2",
                    "--warm-calls",
                    "2",
                    "--idle-ms",
                    "0",
                    "--baseline",
                    baseline.toString()
                },
                new PrintStream(buf, true, StandardCharsets.UTF_8));
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(rc).as(out).isEqualTo(1);
        assertThat(out).contains("measuring once more", "FOOTPRINT GUARD FAILED", "idle_private_dirty_mb");
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
