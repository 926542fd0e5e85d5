package io.sandboxd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tool end to end against a naive in-test runtime: every section runs, JSON and the guard work. */
class BenchMainTest {

    @Test
    void quickRunAgainstARuntimeByAddressWritesJsonAndPassesAgainstItself(@TempDir Path tmp) throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        try (FakeRuntime rt = new FakeRuntime(root)) {
            Path json = tmp.resolve("out.json");
            String[] args = {
                "--grpc",
                rt.grpcTarget(),
                "--rest",
                rt.restBase(),
                "--quick",
                "--size",
                "4194304",
                "--streams",
                "20",
                "--window-ms",
                "300",
                "--work-dir",
                tmp.resolve("work").toString(),
                "--json",
                json.toString()
            };
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            int rc = BenchMain.run(BenchOptions.parse(args), new PrintStream(buf, true, StandardCharsets.UTF_8));
            String out = buf.toString(StandardCharsets.UTF_8);
            System.out.println(out);
            assertThat(rc).as(out).isZero();
            assertThat(out).doesNotContain("FAILED");
            Map<String, Double> costs = Report.readCosts(json);
            assertThat(costs)
                    .containsKeys(
                            "execute_true",
                            "execute_sh_echo",
                            "execute_ops_8_clients",
                            "execute_ops_64_clients",
                            "start_stream_4MiB",
                            "start_first_byte",
                            "put_4MiB",
                            "get_4MiB",
                            "rt_4k_1_clients",
                            "rt_4k_8_clients");
            assertThat(costs.values())
                    .allSatisfy(c -> assertThat(c).isPositive().isFinite());
            assertThat(Files.readString(json))
                    .contains("\"streams_20_concurrent\"", "\"met\": true", "\"baseline_p50\"");

            // The same run as its own baseline passes the guard.
            ByteArrayOutputStream buf2 = new ByteArrayOutputStream();
            String[] again = {
                "--grpc",
                rt.grpcTarget(),
                "--rest",
                rt.restBase(),
                "--quick",
                "--size",
                "4194304",
                "--streams",
                "20",
                "--only",
                "execute",
                "--baseline",
                json.toString(),
                "--max-regression",
                "1000"
            };
            int rc2 = BenchMain.run(BenchOptions.parse(again), new PrintStream(buf2, true, StandardCharsets.UTF_8));
            String out2 = buf2.toString(StandardCharsets.UTF_8);
            // --only execute: metrics of other sections are missing, which the guard must report.
            assertThat(rc2).as(out2).isEqualTo(1);
            assertThat(out2)
                    .contains("put_4MiB: in the baseline but not measured now")
                    .doesNotContain("execute_true:");
        }
    }
}
