package io.sandboxd.conformance.report;

import io.sandboxd.conformance.suite.CheckResult;
import io.sandboxd.conformance.suite.Outcome;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * JUnit XML as CI systems read it: one testcase per check, classname = level and runtime-contract
 * section. Written with the JDK's StAX writer, which does the escaping; only characters XML 1.0
 * cannot carry at all (control characters other than tab, newline and carriage return, which a
 * runtime's error message may contain, and U+FFFE/U+FFFF) are first spelled out as a backslash,
 * x or u, and their code in hex.
 */
public final class JunitXmlReport {
    private JunitXmlReport() {}

    public static void write(RunSummary run, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            XMLStreamWriter x = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
            x.writeStartDocument("UTF-8", "1.0");
            x.writeCharacters("\n");
            x.writeStartElement("testsuites");
            x.writeAttribute("name", "sandboxd-conformance");
            counts(x, run);
            x.writeCharacters("\n  ");
            x.writeStartElement("testsuite");
            x.writeAttribute("name", "sandboxd-conformance");
            counts(x, run);
            x.writeAttribute("errors", "0");
            x.writeAttribute("timestamp", run.started().toString());
            x.writeCharacters("\n    ");
            x.writeStartElement("properties");
            property(x, "grpc", run.grpcTarget());
            property(x, "rest", run.restBase());
            property(x, "selection", run.selection());
            x.writeCharacters("\n    ");
            x.writeEndElement();
            for (CheckResult r : run.results()) {
                testcase(x, r);
            }
            x.writeCharacters("\n  ");
            x.writeEndElement();
            x.writeCharacters("\n");
            x.writeEndElement();
            x.writeCharacters("\n");
            x.writeEndDocument();
            x.close();
        } catch (XMLStreamException e) {
            throw new IOException("writing " + file + ": " + e.getMessage(), e);
        }
    }

    private static void counts(XMLStreamWriter x, RunSummary run) throws XMLStreamException {
        x.writeAttribute("tests", Integer.toString(run.results().size()));
        x.writeAttribute("failures", Long.toString(run.count(Outcome.FAIL)));
        x.writeAttribute("skipped", Long.toString(run.count(Outcome.SKIP)));
        x.writeAttribute("time", seconds(run.duration().toMillis()));
    }

    private static void property(XMLStreamWriter x, String name, String value) throws XMLStreamException {
        x.writeCharacters("\n      ");
        x.writeEmptyElement("property");
        x.writeAttribute("name", name);
        x.writeAttribute("value", xmlChars(value));
    }

    private static void testcase(XMLStreamWriter x, CheckResult r) throws XMLStreamException {
        x.writeCharacters("\n    ");
        boolean passed = r.outcome() == Outcome.PASS;
        if (passed) {
            x.writeEmptyElement("testcase");
        } else {
            x.writeStartElement("testcase");
        }
        x.writeAttribute("classname", "conformance." + r.id().level().label() + ".section-" + r.id().section());
        x.writeAttribute("name", xmlChars(r.id().id() + " " + r.id().statement()));
        x.writeAttribute("time", seconds(r.duration().toMillis()));
        if (passed) {
            return;
        }
        String message = xmlChars(r.message());
        x.writeCharacters("\n      ");
        if (r.outcome() == Outcome.FAIL) {
            x.writeStartElement("failure");
            x.writeAttribute("message", message);
            x.writeAttribute("type", r.id().level().label());
            x.writeCharacters(message);
            x.writeEndElement();
        } else {
            x.writeEmptyElement("skipped");
            x.writeAttribute("message", message);
        }
        x.writeCharacters("\n    ");
        x.writeEndElement();
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.3f", millis / 1000.0);
    }

    /** {@code s} with the characters XML 1.0 cannot carry spelled out in hex. */
    static String xmlChars(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean allowed = c >= 0x20 ? c != 0xFFFE && c != 0xFFFF : c == '\t' || c == '\n' || c == '\r';
            if (!allowed && sb == null) {
                sb = new StringBuilder(s.length() + 8).append(s, 0, i);
            }
            if (sb != null) {
                if (allowed) {
                    sb.append(c);
                } else {
                    sb.append(String.format(Locale.ROOT, c < 0x20 ? "\\x%02x" : "\\u%04x", (int) c));
                }
            }
        }
        return sb == null ? s : sb.toString();
    }
}
