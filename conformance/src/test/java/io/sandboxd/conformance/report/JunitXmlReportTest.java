package io.sandboxd.conformance.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.CheckResult;
import io.sandboxd.conformance.suite.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

class JunitXmlReportTest {
    @TempDir
    Path tmp;

    @Test
    void aHostileMessageStaysWellFormedAndReadsBackAsWritten() throws Exception {
        String hostile = "got <b>&\"quoted\"</b> then\ta tab, a \u0001 and \ufffe";
        RunSummary run = new RunSummary(
                "127.0.0.1:9090",
                "http://127.0.0.1:8080/?a=1&b=<2>",
                "core",
                Instant.parse("2026-12-01T00:00:00Z"),
                Duration.ofMillis(1500),
                List.of(
                        new CheckResult(CheckId.PROC_WIRE_001, Outcome.PASS, "", Duration.ofMillis(5)),
                        new CheckResult(CheckId.PROC_WIRE_002, Outcome.FAIL, hostile, Duration.ofMillis(7)),
                        new CheckResult(CheckId.PROC_WIRE_003, Outcome.SKIP, "not here", Duration.ZERO)));
        Path file = tmp.resolve("junit.xml");
        JunitXmlReport.write(run, file);

        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
        Element suites = d.getDocumentElement();
        assertThat(suites.getTagName()).isEqualTo("testsuites");
        assertThat(suites.getAttribute("tests")).isEqualTo("3");
        assertThat(suites.getAttribute("failures")).isEqualTo("1");
        assertThat(suites.getAttribute("skipped")).isEqualTo("1");
        assertThat(suites.getAttribute("time")).isEqualTo("1.500");
        Element suite = (Element) d.getElementsByTagName("testsuite").item(0);
        assertThat(suite.getAttribute("errors")).isEqualTo("0");
        assertThat(suite.getAttribute("timestamp")).isEqualTo("2026-12-01T00:00:00Z");
        Element rest = (Element) d.getElementsByTagName("property").item(1);
        assertThat(rest.getAttribute("value")).isEqualTo("http://127.0.0.1:8080/?a=1&b=<2>");
        assertThat(d.getElementsByTagName("testcase").getLength()).isEqualTo(3);
        Element failure = (Element) d.getElementsByTagName("failure").item(0);
        String expected = "got <b>&\"quoted\"</b> then\ta tab, a \\x01 and \\ufffe";
        assertThat(failure.getTextContent()).isEqualTo(expected);
        assertThat(failure.getAttribute("type"))
                .isEqualTo(CheckId.PROC_WIRE_002.level().label());
        Element failed = (Element) failure.getParentNode();
        assertThat(failed.getAttribute("name")).startsWith("PROC-WIRE-002 ");
        assertThat(failed.getAttribute("classname")).isEqualTo("conformance.core.section-1.1");
        Element skipped = (Element) d.getElementsByTagName("skipped").item(0);
        assertThat(skipped.getAttribute("message")).isEqualTo("not here");
    }
}
