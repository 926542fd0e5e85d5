package io.sandboxd.logging;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** What each format makes of the daemon's lines and of a library's warning with a stack trace. */
class LogEncodersTest {
    private static JsonNode json(String text) throws Exception {
        assertThat(text).endsWith("\n");
        assertThat(text.strip()).doesNotContain("\n");
        return new ObjectMapper().readTree(text);
    }

    @Test
    void jsonKeepsTypesAndNeverLetsAPairOverwriteACommonField() throws Exception {
        LogCapture c = new LogCapture(LogFormat.JSON);
        c.logger("sandboxd")
                .atInfo()
                .addKeyValue("rest_port", 8080)
                .addKeyValue("ok", true)
                .addKeyValue("nan", Double.NaN)
                .addKeyValue("level", "forged")
                .log("sandboxd: listening");
        JsonNode n = json(c.text());
        assertThat(n.get("rest_port").isInt()).isTrue();
        assertThat(n.get("rest_port").asInt()).isEqualTo(8080);
        assertThat(n.get("ok").isBoolean()).isTrue();
        assertThat(n.get("nan").asString()).isEqualTo("NaN");
        assertThat(n.get("level").asString()).isEqualTo("INFO");
        assertThat(n.get("kv_level").asString()).isEqualTo("forged");
        assertThat(n.get("message").asString()).isEqualTo("sandboxd: listening");
    }

    @Test
    void aLibraryWarningWithAStackTraceIsStillOneJsonLine() throws Exception {
        LogCapture c = new LogCapture(LogFormat.JSON);
        c.logger("io.grpc.netty.NettyServerHandler").warn("stream closed", new IllegalStateException("boom"));
        JsonNode n = json(c.text());
        assertThat(n.get("level").asString()).isEqualTo("WARN");
        assertThat(n.get("logger").asString()).isEqualTo("io.grpc.netty.NettyServerHandler");
        assertThat(n.get("error").asString())
                .contains("IllegalStateException: boom")
                .contains("\tat ");
    }

    @Test
    void textPrintsTheDaemonsLinesBareAndNamesALibrarysLogger() {
        LogCapture c = new LogCapture(LogFormat.TEXT);
        c.logger("sandboxd").atInfo().addKeyValue("rest_port", 1).log("sandboxd: listening rest=x");
        c.logger("org.eclipse.jetty.server.Server").warn("odd");
        assertThat(c.text().lines().toList())
                .satisfiesExactly(l -> assertThat(l).isEqualTo("sandboxd: listening rest=x"), l -> assertThat(l)
                        .matches("\\S+Z WARN \\[\\S+\\] org\\.eclipse\\.jetty\\.server\\.Server - odd"));
    }

    @Test
    void textKeepsTheFieldsOfAClassLoggersLine() {
        LogCapture c = new LogCapture(LogFormat.TEXT);
        c.logger("io.sandboxd.controller.app.Main")
                .atInfo()
                .addKeyValue("port", 8080)
                .addKeyValue("leaderElection", false)
                .log("probes and metrics listening");
        assertThat(c.text().lines().toList())
                .singleElement()
                .asString()
                .matches("\\S+Z INFO \\[\\S+\\] io\\.sandboxd\\.controller\\.app\\.Main"
                        + " - probes and metrics listening port=8080 leaderElection=false");
    }
}
