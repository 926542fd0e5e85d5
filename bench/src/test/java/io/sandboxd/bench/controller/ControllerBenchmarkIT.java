package io.sandboxd.bench.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `sandboxd-bench controller` end to end against the packaged controller jar, small: 5 claims
 * per burst, two warm-up rounds of 3. Checks the JSON the issue asks for, not the figures' size.
 */
class ControllerBenchmarkIT {
    @Test
    void writesTheWarmAndColdFiguresAndLeavesNoControllerBehind(@TempDir Path dir) throws Exception {
        Path repo = Path.of(System.getProperty("sandboxd.repoRoot", ".."))
                .toAbsolutePath()
                .normalize();
        Path jar = repo.resolve(ControllerBenchmark.DEFAULT_JAR);
        assertThat(jar)
                .as("the controller jar is built before the bench module")
                .exists();
        Path json = dir.resolve("controller-benchmark.json");

        int rc = ControllerBenchmark.run(new String[] {
            "--controller-jar",
            jar.toString(),
            "--claims",
            "5",
            "--warmup-claims",
            "3",
            "--warmup-rounds",
            "2",
            "--rate",
            "200",
            // Objects as an API server sends them; the warm path's 2 writes per claim must hold with them.
            "--managed-fields",
            "--pod-defaults",
            "--machine-stalls",
            // C1 only: a short run does not pay back C2's compile time (most of its CPU on a busy machine).
            // A small young generation: the run collects often, so the pause histogram has pauses to show.
            "--controller-jvm-opts",
            "-XX:+UseSerialGC -Xss512k -Xmx256m -Xmn8m -XX:TieredStopAtLevel=1",
            "--json",
            json.toString()
        });

        assertThat(rc).isZero();
        JsonObject report = JsonParser.parseString(Files.readString(json, StandardCharsets.UTF_8))
                .getAsJsonObject();
        assertThat(report.getAsJsonObject("method").get("managed_fields").getAsBoolean())
                .isTrue();
        assertThat(report.getAsJsonObject("method").get("pod_defaults").getAsBoolean())
                .isTrue();
        assertThat(report.getAsJsonObject("method").get("api_java").getAsString())
                .containsAnyOf("C1 only", "tiered C1+C2");
        assertThat(report.getAsJsonObject("method").get("warmup_rounds").getAsInt())
                .isEqualTo(2);
        assertThat(report.get("sandboxes_at_first_burst").getAsInt())
                .as("every warm-up round's Sandboxes deleted before the measured bursts")
                .isZero();
        for (String type : new String[] {"warm", "cold"}) {
            JsonObject t = report.getAsJsonObject(type);
            assertThat(t.get("claims_per_second").getAsDouble()).as(type).isPositive();
            assertThat(t.get("writes_per_claim").getAsDouble()).as(type).isPositive();
            assertThat(t.get("uncached_reads_per_claim").getAsDouble()).as(type).isZero();
            JsonObject lat = t.getAsJsonObject("controller_latency_ms");
            assertThat(lat.get("p50").getAsDouble()).as(type).isPositive();
            assertThat(lat.get("p99").getAsDouble())
                    .as(type)
                    .isGreaterThanOrEqualTo(lat.get("p50").getAsDouble());
            assertThat(lat.get("n").getAsInt())
                    .as("claims with a latency, " + type)
                    .isEqualTo(5);
            assertThat(t.get("cpu_ms_per_claim").getAsDouble()).as(type).isPositive();
            assertThat(t.get("system_cpu_ms_per_claim").getAsDouble())
                    .as("system time is a part of the CPU, " + type)
                    .isBetween(0.0, t.get("cpu_ms_per_claim").getAsDouble());
            assertThat(t.getAsJsonObject("cpu_ms_per_claim_by_threads").keySet())
                    .containsExactlyElementsOf(ThreadCpu.GROUPS);
            assertThat(t.get("runqueue_wait_ms_per_claim").getAsDouble())
                    .as(type)
                    .isNotNegative();
            JsonObject slices = t.getAsJsonObject("timeslices_per_claim_by_threads");
            assertThat(slices.keySet()).containsExactlyElementsOf(ThreadCpu.GROUPS);
            assertThat(slices.get("claim_workers").getAsDouble())
                    .as("a claim is reconciled on a claim worker, so one is put on a CPU, " + type)
                    .isPositive();
            assertThat(t.getAsJsonObject("flood")
                            .get("cpu_ms_per_claim_until_settled")
                            .getAsDouble())
                    .as(type)
                    .isGreaterThanOrEqualTo(
                            t.getAsJsonObject("flood").get("cpu_ms_per_claim").getAsDouble());
            assertThat(t.get("bench_jvm_cpu_ms_per_claim").getAsDouble())
                    .as("the stand-in serves every request: its JVM's CPU, " + type)
                    .isPositive();
            JsonObject reconciles = t.getAsJsonObject("reconciles_per_claim_until_settled");
            assertThat(reconciles.keySet()).as(type).contains("sandbox", "sandboxclaim", "sandboxwarmpool");
            assertThat(reconciles.get("sandbox").getAsDouble())
                    .as("Sandbox reconciles per claim, " + type)
                    .isPositive();
            assertThat(reconciles.get("sandboxclaim").getAsDouble())
                    .as("claim reconciles per claim, " + type)
                    .isGreaterThanOrEqualTo(1.0);
            assertThat(t.getAsJsonObject("reconcile_mean_ms")
                            .get("sandboxclaim")
                            .getAsDouble())
                    .as(type)
                    .isPositive();
            assertThat(t.get("heap_used_mib_peak").getAsDouble()).as(type).isPositive();
            assertThat(t.get("rss_mib_peak").getAsDouble()).as(type).isPositive();
            assertThat(t.get("double_adoptions").getAsLong()).as(type).isZero();
            assertThat(t.getAsJsonObject("gc_pauses").keySet())
                    .as(type)
                    .contains("count", "total_ms", "longer_than_20ms", "longest_at_most_ms");
            JsonObject standInPauses = t.getAsJsonObject("bench_jvm_gc_pauses");
            assertThat(standInPauses.keySet()).as(type).containsExactly("collector", "count", "total_ms", "longest_ms");
            assertThat(standInPauses.get("longest_ms").getAsLong())
                    .as("the stand-in's longest pause is one of its pauses, " + type)
                    .isLessThanOrEqualTo(standInPauses.get("total_ms").getAsLong());
            JsonObject stalls = t.getAsJsonObject("machine_stalls");
            if (report.getAsJsonObject("method")
                    .get("machine_stalls")
                    .getAsString()
                    .equals(MachineStalls.METHOD)) {
                assertThat(stalls.keySet())
                        .as(type)
                        .containsExactlyInAnyOrder(
                                "count", "total_ms", "longest_ms", "slowest_claims", "slowest_claims_near_a_stall");
                assertThat(stalls.get("slowest_claims").getAsInt())
                        .as("the claims at or above the p99 of 5, " + type)
                        .isEqualTo(1);
            } else {
                assertThat(stalls.keySet()).as(type).containsExactly("not_measured");
            }
            assertThat(t.get("bound").getAsInt()).as("paced + flood, " + type).isEqualTo(10);
        }
        assertThat(report.getAsJsonObject("warm").get("warm").getAsInt()).isEqualTo(10);
        assertThat(report.getAsJsonObject("warm").get("writes_per_claim").getAsDouble())
                .isEqualTo(2.0);
        assertThat(report.getAsJsonObject("cold").get("warm").getAsInt()).isZero();
        JsonObject gc = report.getAsJsonObject("gc_pauses_whole_run");
        long pauses = gc.get("count").getAsLong();
        assertThat(pauses).as("the controller's GC pauses over the run").isPositive();
        assertThat(pauses)
                .as("the whole run holds each burst's pauses")
                .isGreaterThanOrEqualTo(report.getAsJsonObject("warm")
                                .getAsJsonObject("gc_pauses")
                                .get("count")
                                .getAsLong()
                        + report.getAsJsonObject("cold")
                                .getAsJsonObject("gc_pauses")
                                .get("count")
                                .getAsLong());
        assertThat(gc.get("longest_at_most_ms").getAsDouble()).isPositive();
        assertThat(ProcessHandle.current()
                        .descendants()
                        .filter(p -> p.info().commandLine().orElse("").contains("sandboxd-controller.jar"))
                        .filter(ProcessHandle::isAlive)
                        .toList())
                .as("controller processes left running")
                .isEmpty();
    }
}
