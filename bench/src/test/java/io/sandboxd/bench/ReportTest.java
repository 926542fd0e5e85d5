package io.sandboxd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {

    private static Stats s(double p50) {
        return new Stats(1, p50, p50, p50, p50);
    }

    private static Report report(double execMs, double putMBs, boolean streamsOk) {
        Metric exec = new Metric("execute_true", "ms", s(execMs))
                .against("spawn_true", s(1.0))
                .atMost(1.5, "t");
        Metric put =
                new Metric("put", "MB/s", s(putMBs)).against("cp_sync", s(1000)).atLeast(0.5, "t");
        Metric p99 = new Metric("execute_true_p99", "ms", s(execMs * 10))
                .ratio(execMs * 10)
                .unguarded();
        Metric streams = new Metric("streams", "ms", s(1));
        streams.targetText = "all complete";
        streams.met = streamsOk;
        streams.note = "x";
        return new Report(List.of(exec, put, p99, streams), new LinkedHashMap<>(), new LinkedHashMap<>());
    }

    @Test
    void costIsOrientedSoBiggerIsWorse() {
        assertThat(new Metric("a", "ms", s(3)).against("b", s(2)).cost()).isEqualTo(1.5);
        assertThat(new Metric("a", "MB/s", s(250))
                        .against("b", s(1000))
                        .higherIsBetter()
                        .cost())
                .isEqualTo(4.0);
    }

    @Test
    void guardPassesWithinTheFactorAndFailsBeyondIt(@TempDir Path tmp) throws Exception {
        Path base = tmp.resolve("base.json");
        report(2.0, 800, true).writeJson(base);
        Map<String, Double> costs = Report.readCosts(base);
        assertThat(costs).containsOnlyKeys("execute_true", "put");

        assertThat(report(5.9, 300, true).compare(costs, 3.0)).isEmpty();
        assertThat(report(6.1, 800, true).compare(costs, 3.0))
                .singleElement()
                .asString()
                .startsWith("execute_true:");
        assertThat(report(2.0, 250, true).compare(costs, 3.0))
                .singleElement()
                .asString()
                .startsWith("put:");
        assertThat(report(2.0, 800, false).compare(costs, 3.0))
                .singleElement()
                .asString()
                .startsWith("streams:");
    }

    @Test
    void aSuspectedRegressionIsRemeasuredAndTheBetterRunCounts(@TempDir Path tmp) throws Exception {
        Path base = tmp.resolve("base.json");
        report(2.0, 800, true).writeJson(base);
        Map<String, Double> costs = Report.readCosts(base);
        Report first = report(7.0, 800, true);
        first.metrics().forEach(m -> m.section = m.name.startsWith("execute") ? "execute" : "files");
        assertThat(first.sectionsToRemeasure(costs, 3.0)).containsExactly("execute");

        Report noisyOnce = first.bestOf(report(2.5, 100, true));
        assertThat(noisyOnce.compare(costs, 3.0)).isEmpty();
        Report reproduced = first.bestOf(report(6.5, 800, true));
        assertThat(reproduced.compare(costs, 3.0)).singleElement().asString().startsWith("execute_true:");
    }

    @Test
    void statsMedianAndNearestRankP99() {
        double[] v = new double[100];
        for (int i = 0; i < 100; i++) {
            v[i] = i + 1;
        }
        Stats st = Stats.of(v);
        assertThat(st.p50()).isEqualTo(50);
        assertThat(st.p99()).isEqualTo(99);
        assertThat(Stats.ofRates(v).p99()).isEqualTo(1);
    }
}
