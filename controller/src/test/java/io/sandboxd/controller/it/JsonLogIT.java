package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The shaded `sandboxd-controller.jar` with upstream's {@code --zap-encoder json} (the same as
 * {@code --log-format json}): every stderr line, from the no-effect flag warning through fabric8's
 * and JOSDK's warnings about an API server nothing answers to the shutdown on SIGTERM, is one JSON
 * object with the common fields; and outside a cluster the one refusal line is JSON too.
 */
class JsonLogIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static ProcessBuilder controller(List<String> jvmArgs, String... args) {
        Path jar = Path.of(System.getProperty("controller.dir", "."), "target", "sandboxd-controller.jar");
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC"));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-jar", jar.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("SANDBOXD_LOG_FORMAT");
        return pb;
    }

    @Test
    void everyLineFromStartToSigtermIsOneJsonObject() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        ProcessBuilder pb = controller(
                List.of(),
                "--zap-encoder=json",
                "--enable-tracing",
                "--no-leader-elect",
                "--cache-sync-timeout-seconds=2",
                "--metrics-bind-address=127.0.0.1:0");
        pb.environment().put("KUBERNETES_MASTER", "https://127.0.0.1:" + closed);
        pb.environment().put("KUBERNETES_TRUST_CERTIFICATES", "true");
        pb.environment().put("KUBECONFIG", "/nonexistent");
        Path err = dir.resolve("stderr");
        Path out = dir.resolve("stdout");
        Process p = pb.redirectError(err.toFile()).redirectOutput(out.toFile()).start();
        try {
            Await.until("controller started", () -> read(err).contains("controller started"));
            int port = objects(read(err)).stream()
                    .filter(n -> n.get("message").asString().equals("probes and metrics listening"))
                    .findFirst()
                    .orElseThrow()
                    .get("port")
                    .asInt();
            HttpClient http = HttpClient.newHttpClient();
            for (String path : List.of("/readyz", "/healthz", "/metrics")) {
                http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
            }
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
        } finally {
            p.destroyForcibly().waitFor();
        }
        List<JsonNode> lines = objects(read(err));
        assertThat(read(out)).isEmpty();
        assertThat(lines)
                .anySatisfy(n -> {
                    assertThat(n.get("message").asString()).isEqualTo("probes and metrics listening");
                    assertThat(n.get("port").isInt()).as("typed: %s", n).isTrue();
                })
                .anySatisfy(n -> assertThat(n.get("message").asString()).contains("--enable-tracing has no effect"))
                .anySatisfy(n -> {
                    assertThat(n.get("level").asString()).isEqualTo("WARN");
                    assertThat(n.get("logger").asString()).startsWith("io.");
                    assertThat(n.get("logger").asString()).doesNotStartWith("io.sandboxd");
                })
                .anySatisfy(n -> {
                    assertThat(n.get("message").asString()).isEqualTo("controller started");
                    assertThat(n.get("extensions").isBoolean())
                            .as("typed: %s", n)
                            .isTrue();
                })
                .anySatisfy(n -> assertThat(n.get("message").asString()).isEqualTo("shutting down"));
    }

    @Test
    void outsideAClusterTheOneRefusalLineIsJson() throws Exception {
        ProcessBuilder pb =
                controller(List.of("-Duser.home=" + dir), "--log-format=json", "--metrics-bind-address=127.0.0.1:0");
        pb.environment().keySet().removeIf(k -> k.startsWith("KUBERNETES_") || k.equals("KUBECONFIG"));
        pb.environment().put("HOME", dir.toString());
        Path err = dir.resolve("stderr");
        Process p = pb.redirectErrorStream(true).redirectOutput(err.toFile()).start();
        try {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(1);
        } finally {
            p.destroyForcibly().waitFor();
        }
        assertThat(objects(read(err))).singleElement().satisfies(n -> {
            assertThat(n.get("level").asString()).isEqualTo("ERROR");
            assertThat(n.get("message").asString()).startsWith("sandboxd-controller: no Kubernetes API server");
        });
    }

    @Test
    void zapLogLevelErrorLeavesOnlyTheErrors() throws Exception {
        // without the level this prints two lines: the --enable-tracing warning, then the refusal
        ProcessBuilder pb = controller(
                List.of("-Duser.home=" + dir),
                "--log-format=json",
                "--zap-log-level=error",
                "--enable-tracing",
                "--metrics-bind-address=127.0.0.1:0");
        pb.environment().keySet().removeIf(k -> k.startsWith("KUBERNETES_") || k.equals("KUBECONFIG"));
        pb.environment().put("HOME", dir.toString());
        Path err = dir.resolve("stderr");
        Process p = pb.redirectErrorStream(true).redirectOutput(err.toFile()).start();
        try {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(1);
        } finally {
            p.destroyForcibly().waitFor();
        }
        assertThat(objects(read(err)))
                .singleElement()
                .satisfies(n -> assertThat(n.get("level").asString()).isEqualTo("ERROR"));
    }

    /** Every line parsed; fails on the first that is not one JSON object with the common fields. */
    private static List<JsonNode> objects(String text) {
        List<JsonNode> nodes = new ArrayList<>();
        for (String line : text.lines().toList()) {
            JsonNode n = JSON.readTree(line);
            assertThat(n.isObject()).as(line).isTrue();
            for (String field : List.of("time", "level", "logger", "message")) {
                assertThat(n.path(field).isString()).as("%s in %s", field, line).isTrue();
            }
            Instant.parse(n.get("time").asString());
            nodes.add(n);
        }
        return nodes;
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
