package io.sandboxd.daemon.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** A hostile path must never forge a second log line, in either format. */
class RequestLogTest {
    private static final String HOSTILE = "/v1/files/a\nb\r\"c\\d<e>\u2028\ud800 f";

    private static String logged(LogFormat format) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        new RequestLog(format, new PrintStream(buf, true, StandardCharsets.UTF_8))
                .log("rest", "PUT", HOSTILE, "204", 1_500_000, 10, 0);
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void jsonLineIsOneValidObjectThatRoundTripsTheTarget() throws Exception {
        String line = logged(LogFormat.JSON);
        assertThat(line.strip()).doesNotContain("\n").doesNotContain("\r");
        JsonNode n = new ObjectMapper().readTree(line);
        assertThat(n.get("transport").asString()).isEqualTo("rest");
        assertThat(n.get("status").asString()).isEqualTo("204");
        assertThat(n.get("bytes_in").asLong()).isEqualTo(10);
        assertThat(n.get("target").asString()).startsWith("/v1/files/a\nb\r\"c\\d<e>\u2028");
    }

    @Test
    void textLineEscapesControlCharactersAndSpaces() {
        String line = logged(LogFormat.TEXT);
        assertThat(line.strip()).doesNotContain("\n").doesNotContain("\r");
        assertThat(line)
                .contains("rest PUT /v1/files/a\\x0ab\\x0d\"c\\x5cd<e>")
                .contains("status=204")
                .contains("bytes_in=10");
    }
}
