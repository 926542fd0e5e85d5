package io.sandboxd.daemon.logging;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.logging.LogCapture;
import io.sandboxd.logging.LogFormat;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** A hostile path must never forge a second log line, in either format; JSON fields are typed. */
class RequestLogTest {
    private static final String HOSTILE = "/v1/files/a\nb\r\"c\\d<e>\u2028\ud800 f";

    private static String logged(LogFormat format) {
        LogCapture capture = new LogCapture(format);
        new RequestLog(capture.logger(RequestLog.LOGGER)).log("rest", "PUT", HOSTILE, "204", 1_500_000, 10, 0);
        return capture.text();
    }

    @Test
    void jsonLineIsOneValidObjectWithTypedFieldsThatRoundTripsTheTarget() throws Exception {
        String line = logged(LogFormat.JSON);
        assertThat(line.strip()).doesNotContain("\n").doesNotContain("\r");
        JsonNode n = new ObjectMapper().readTree(line);
        assertThat(n.get("level").asString()).isEqualTo("INFO");
        assertThat(n.get("logger").asString()).isEqualTo("sandboxd.request");
        assertThat(n.get("time").asString()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");
        assertThat(n.get("message").asString()).startsWith("rest PUT /v1/files/a\\x0ab");
        assertThat(n.get("transport").asString()).isEqualTo("rest");
        assertThat(n.get("status").asString()).isEqualTo("204");
        assertThat(n.get("bytes_in").isIntegralNumber()).isTrue();
        assertThat(n.get("bytes_in").asLong()).isEqualTo(10);
        assertThat(n.get("duration_ms").isNumber()).isTrue();
        assertThat(n.get("duration_ms").asDouble()).isEqualTo(1.5);
        assertThat(n.get("target").asString()).startsWith("/v1/files/a\nb\r\"c\\d<e>\u2028");
    }

    @Test
    void textLineKeepsTheInstantPrefixAndEscapesControlCharactersAndSpaces() {
        String line = logged(LogFormat.TEXT);
        assertThat(line.strip()).doesNotContain("\n").doesNotContain("\r");
        assertThat(line)
                .matches("(?s)\\d{4}-\\d\\d-\\d\\dT\\S+Z rest PUT .*")
                .contains("rest PUT /v1/files/a\\x0ab\\x0d\"c\\x5cd<e>")
                .contains("status=204")
                .contains("duration_ms=1.500")
                .contains("bytes_in=10");
    }
}
