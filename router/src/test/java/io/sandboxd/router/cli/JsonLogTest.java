package io.sandboxd.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.router.testing.HttpBackend;
import io.sandboxd.router.testing.RouterProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The router's whole output with {@code --log-format json}, from start-up through a routed
 * request and a refused one to SIGTERM: every line one JSON object with the common fields.
 */
class JsonLogTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyLineFromStartToSigtermIsOneJsonObject() throws Exception {
        List<String> lines;
        try (HttpBackend backend = new HttpBackend();
                RouterProcess router = RouterProcess.start(
                        List.of(),
                        "--log-format",
                        "json",
                        "--cache-enabled=false",
                        "--allow-loopback-pod-ip",
                        "--deny-cidr",
                        "10.0.0.0/8")) {
            HttpClient http =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            assertThat(send(http, router.port, "127.0.0.1", backend.port())).isEqualTo(200);
            assertThat(send(http, router.port, "10.1.2.3", 8888)).isEqualTo(400); // a denied range: logs a warning
            router.process.destroy(); // SIGTERM
            assertThat(router.process.waitFor(20, TimeUnit.SECONDS)).isTrue();
            lines = router.output().lines().toList();
        }
        List<JsonNode> objects = new ArrayList<>();
        for (String line : lines) {
            JsonNode n = JSON.readTree(line);
            assertThat(n.isObject()).as(line).isTrue();
            for (String field : List.of("time", "level", "logger", "message")) {
                assertThat(n.path(field).isString()).as("%s in %s", field, line).isTrue();
            }
            Instant.parse(n.get("time").asString());
            objects.add(n);
        }
        assertThat(objects)
                .anySatisfy(n -> {
                    assertThat(n.get("message").asString()).startsWith("router listening on");
                    assertThat(n.get("port").isInt()).isTrue(); // typed, not "1234"
                })
                .anySatisfy(n -> {
                    assertThat(n.get("level").asString()).isEqualTo("WARN");
                    assertThat(n.get("message").asString())
                            .startsWith("not dialling")
                            .contains("10.1.2.3");
                })
                .anySatisfy(n -> assertThat(n.get("message").asString()).isEqualTo("shutting down"));
    }

    private static int send(HttpClient http, int routerPort, String podIp, int port) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + routerPort + "/hello"))
                .header("X-Sandbox-ID", "logged")
                .header("X-Sandbox-Pod-IP", podIp)
                .header("X-Sandbox-Port", Integer.toString(port))
                .build();
        return http.send(req, BodyHandlers.discarding()).statusCode();
    }
}
