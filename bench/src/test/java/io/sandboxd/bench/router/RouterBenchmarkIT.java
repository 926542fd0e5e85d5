package io.sandboxd.bench.router;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router benchmark end to end against the packaged router jar, started as its own process
 * (twice: once as the router measured, once as the baseline router), and the packaged daemon: a
 * short HTTP/1.1 run at one concurrency plus the POST, straight to the backend and through both
 * routers, then a few gRPC Execute calls and a small Start stream, straight and through the router.
 */
class RouterBenchmarkIT {

    @Test
    void measuresThePackagedRouterAndLeavesNoRouterProcessBehind(@TempDir Path dir) throws Exception {
        Path repo = Path.of(System.getProperty("sandboxd.repoRoot", ".."))
                .toAbsolutePath()
                .normalize();
        Path jar = Path.of(System.getProperty(
                "sandboxd.router.jar",
                repo.resolve("router/target/sandboxd-router.jar").toString()));
        assertThat(jar).as("the router jar is built before the bench module").exists();
        Path daemonJar = Path.of(System.getProperty(
                "sandboxd.jar", repo.resolve("daemon/target/sandboxd.jar").toString()));
        Path json = dir.resolve("router-benchmark.json");

        int rc = RouterBenchmark.run(new String[] {
            "--router-jar",
            jar.toString(),
            "--baseline-router-jar",
            jar.toString(),
            "--daemon-jar",
            daemonJar.toString(),
            "--grpc-calls",
            "20",
            "--grpc-warmup-calls",
            "5",
            "--grpc-rounds",
            "2",
            "--start-bytes",
            "4194304",
            "--start-runs",
            "1",
            "--duration",
            "1s",
            "--warmup",
            "500ms",
            "--concurrency",
            "10",
            "--post-bytes",
            "1024",
            "--json",
            json.toString()
        });

        assertThat(rc).isZero();
        JsonObject report = JsonParser.parseString(Files.readString(json, StandardCharsets.UTF_8))
                .getAsJsonObject();
        assertThat(report.get("router").getAsString()).startsWith("started from " + jar);
        JsonArray runs = report.getAsJsonArray("runs");
        List<String> cells = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            JsonObject r = runs.get(i).getAsJsonObject();
            cells.add(r.get("target").getAsString() + " " + r.get("request").getAsString() + " "
                    + r.get("concurrency").getAsInt());
            assertThat(r.get("requests").getAsLong()).as("requests of %s", r).isPositive();
            assertThat(r.get("errors").getAsLong()).as("errors of %s", r).isZero();
        }
        assertThat(cells)
                .containsExactly(
                        "direct GET 10",
                        "router GET 10",
                        "baseline GET 10",
                        "direct POST 1024 B 50",
                        "router POST 1024 B 50",
                        "baseline POST 1024 B 50");
        JsonArray execute = report.getAsJsonArray("grpc_execute");
        assertThat(execute).hasSize(2);
        for (var round : execute) {
            JsonObject r = round.getAsJsonObject();
            assertThat(r.get("calls").getAsInt()).isEqualTo(20);
            assertThat(r.get("direct_p50_ms").getAsDouble()).isPositive();
            assertThat(r.get("router_p50_ms").getAsDouble()).isPositive();
        }
        JsonArray start = report.getAsJsonArray("grpc_start");
        assertThat(start).hasSize(1);
        assertThat(start.get(0).getAsJsonObject().get("router_mb_per_s").getAsDouble())
                .isPositive();
        List<String> rss = new ArrayList<>();
        for (var s : report.getAsJsonArray("rss")) {
            JsonObject r = s.getAsJsonObject();
            rss.add(r.get("router").getAsString() + " " + r.get("when").getAsString());
            assertThat(r.get("rss_bytes").getAsLong()).isPositive();
        }
        assertThat(rss)
                .containsExactly(
                        "router idle",
                        "baseline idle",
                        "router after HTTP/1.1 load",
                        "baseline after HTTP/1.1 load",
                        "router after gRPC load");
        assertThat(ProcessHandle.current()
                        .descendants()
                        .filter(p -> p.info().commandLine().orElse("").contains("sandboxd-router.jar"))
                        .filter(ProcessHandle::isAlive)
                        .toList())
                .as("router processes left running")
                .isEmpty();
    }
}
