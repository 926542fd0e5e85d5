package io.sandboxd.conformance.report;

import io.sandboxd.conformance.suite.CheckResult;
import io.sandboxd.conformance.suite.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The machine-readable report: the run, totals, and every check with its outcome and message. */
public final class JsonReport {
    private JsonReport() {}

    public static void write(RunSummary run, Path file) throws IOException {
        JsonMapper m = JsonMapper.builder().build();
        ObjectNode root = m.createObjectNode();
        ObjectNode rt = root.putObject("runtime");
        rt.put("grpc", run.grpcTarget());
        rt.put("rest", run.restBase());
        root.put("selection", run.selection());
        root.put("started", run.started().toString());
        root.put("duration_ms", run.duration().toMillis());
        ObjectNode sum = root.putObject("summary");
        sum.put("passed", run.count(Outcome.PASS));
        sum.put("failed", run.count(Outcome.FAIL));
        sum.put("skipped", run.count(Outcome.SKIP));
        ArrayNode checks = root.putArray("checks");
        for (CheckResult r : run.results()) {
            ObjectNode c = checks.addObject();
            c.put("id", r.id().id());
            c.put("level", r.id().level().label());
            c.put("section", r.id().section());
            c.put("statement", r.id().statement());
            c.put("outcome", r.outcome().name().toLowerCase(java.util.Locale.ROOT));
            c.put("message", r.message());
            c.put("duration_ms", r.duration().toMillis());
        }
        Files.writeString(file, m.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    }
}
