package io.sandboxd.conformance.report;

import io.sandboxd.conformance.suite.CheckResult;
import io.sandboxd.conformance.suite.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** JUnit XML as CI systems read it: one testcase per check, classname = level and runtime-contract section. */
public final class JunitXmlReport {
    private JunitXmlReport() {}

    public static void write(RunSummary run, Path file) throws IOException {
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        x.append("<testsuites name=\"sandboxd-conformance\" tests=\"")
                .append(run.results().size())
                .append("\" failures=\"")
                .append(run.count(Outcome.FAIL))
                .append("\" skipped=\"")
                .append(run.count(Outcome.SKIP))
                .append("\" time=\"")
                .append(seconds(run.duration().toMillis()))
                .append("\">\n");
        x.append("  <testsuite name=\"sandboxd-conformance\" tests=\"")
                .append(run.results().size())
                .append("\" failures=\"")
                .append(run.count(Outcome.FAIL))
                .append("\" errors=\"0\" skipped=\"")
                .append(run.count(Outcome.SKIP))
                .append("\" time=\"")
                .append(seconds(run.duration().toMillis()))
                .append("\" timestamp=\"")
                .append(run.started())
                .append("\">\n");
        x.append("    <properties>\n");
        x.append("      <property name=\"grpc\" value=\"")
                .append(esc(run.grpcTarget()))
                .append("\"/>\n");
        x.append("      <property name=\"rest\" value=\"")
                .append(esc(run.restBase()))
                .append("\"/>\n");
        x.append("      <property name=\"selection\" value=\"")
                .append(esc(run.selection()))
                .append("\"/>\n");
        x.append("    </properties>\n");
        for (CheckResult r : run.results()) {
            x.append("    <testcase classname=\"conformance.")
                    .append(r.id().level().label())
                    .append(".section-")
                    .append(r.id().section())
                    .append("\" name=\"")
                    .append(esc(r.id().id() + " " + r.id().statement()))
                    .append("\" time=\"")
                    .append(seconds(r.duration().toMillis()))
                    .append('"');
            if (r.outcome() == Outcome.PASS) {
                x.append("/>\n");
                continue;
            }
            x.append(">\n");
            if (r.outcome() == Outcome.FAIL) {
                x.append("      <failure message=\"")
                        .append(esc(r.message()))
                        .append("\" type=\"")
                        .append(r.id().level().label())
                        .append("\">")
                        .append(esc(r.message()))
                        .append("</failure>\n");
            } else {
                x.append("      <skipped message=\"").append(esc(r.message())).append("\"/>\n");
            }
            x.append("    </testcase>\n");
        }
        x.append("  </testsuite>\n</testsuites>\n");
        Files.writeString(file, x.toString(), StandardCharsets.UTF_8);
    }

    private static String seconds(long millis) {
        return String.format(java.util.Locale.ROOT, "%.3f", millis / 1000.0);
    }

    static String esc(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\n' -> sb.append("&#10;");
                default -> {
                    if (c < 0x20 && c != '\t') {
                        sb.append("\\x").append(String.format("%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
