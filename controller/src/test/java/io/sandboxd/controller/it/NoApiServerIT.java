package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * `sandboxd-controller` as a real process with an API server address nothing answers (a Pod whose
 * API server is down, or a container started without a cluster): its probes answer at once,
 * /healthz 200 and /readyz 503, both while start-up waits for the informers and after it gave up
 * waiting, and the process keeps running while fabric8 retries: no probe that hangs, no exit into
 * a crash loop.
 */
class NoApiServerIT {
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern PORT = Pattern.compile("probes and metrics listening port=(\\d+)");

    @Test
    void probesAnswerAtOnceAndTheProcessStaysUp() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Path log = Files.createTempFile("controller", ".log");
        ProcessBuilder pb = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                "io.sandboxd.controller.app.Main",
                "--no-leader-elect",
                "--cache-sync-timeout-seconds=3",
                "--metrics-bind-address=127.0.0.1:0"));
        pb.environment().put("KUBERNETES_MASTER", "https://127.0.0.1:" + closed);
        pb.environment().put("KUBERNETES_TRUST_CERTIFICATES", "true");
        pb.environment().put("KUBECONFIG", "/nonexistent");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        try {
            int[] port = new int[1];
            Await.until("the probe port in the log", () -> {
                Matcher m = PORT.matcher(read(log));
                if (!m.find()) return false;
                port[0] = Integer.parseInt(m.group(1));
                return true;
            });
            HttpClient http =
                    HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).build();
            assertThat(get(http, port[0], "/healthz")).as(read(log)).isEqualTo(200);
            assertThat(get(http, port[0], "/readyz")).as(read(log)).isEqualTo(503);

            // Start-up gives up waiting for the informers after 3 s and runs on, not ready.
            Await.until(
                    "start-up to finish without the informers", () -> read(log).contains("controller started"));
            assertThat(p.isAlive()).as(read(log)).isTrue();
            assertThat(get(http, port[0], "/readyz")).as(read(log)).isEqualTo(503);
            assertThat(get(http, port[0], "/healthz")).as(read(log)).isEqualTo(200);
            p.waitFor(3, TimeUnit.SECONDS);
            assertThat(p.isAlive()).as("still running; log:%n%s", read(log)).isTrue();
            assertThat(get(http, port[0], "/readyz")).as(read(log)).isEqualTo(503);
        } finally {
            p.destroyForcibly();
            p.waitFor();
            Files.deleteIfExists(log);
        }
    }

    private static int get(HttpClient http, int port, String path) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(PROBE_TIMEOUT)
                .build();
        return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
