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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * `sandboxd-controller` as a real process with an API server address nothing answers (a Pod whose
 * API server is down): its probes answer at once, /healthz 200 and /readyz 503, both while start-up
 * waits for the informers and after it gave up waiting, and the process keeps running while fabric8
 * retries: no probe that hangs (as /readyz did while start-up waited), no exit into a crash loop.
 */
class NoApiServerIT {
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(8);
    /** The log line that names the probe port (key=value fields before or after the message). */
    private static final Pattern PORT_LINE = Pattern.compile(".*probes and metrics listening.*");

    private static final Pattern PORT_VALUE = Pattern.compile("port\\W+(\\d+)");

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
                "--cache-sync-timeout-seconds=10",
                "--metrics-bind-address=127.0.0.1:0"));
        pb.environment().put("KUBERNETES_MASTER", "https://127.0.0.1:" + closed);
        pb.environment().put("KUBERNETES_TRUST_CERTIFICATES", "true");
        pb.environment().put("KUBECONFIG", "/nonexistent");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        try {
            int[] port = new int[1];
            Await.until("the probe port in the log", () -> {
                Matcher line = PORT_LINE.matcher(read(log));
                if (!line.find()) return false;
                Matcher m = PORT_VALUE.matcher(line.group());
                if (!m.find()) return false;
                port[0] = Integer.parseInt(m.group(1));
                return true;
            });
            HttpClient http =
                    HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).build();
            // Probed as a kubelet does, every 250 ms, all through start-up: while it waits for the
            // informers (10 s here, twice: owners, then dependents) and for 3 s after it gave up waiting. Each probe
            // must be
            // answered within the probe timeout.
            int during = 0;
            int after = 0;
            long until = Long.MAX_VALUE;
            while (System.nanoTime() < until) {
                boolean startedBefore = read(log).contains("controller started");
                assertThat(get(http, port[0], "/readyz")).as(read(log)).isEqualTo(503);
                assertThat(get(http, port[0], "/healthz")).as(read(log)).isEqualTo(200);
                boolean startedAfter = read(log).contains("controller started");
                if (!startedAfter) during++;
                if (startedBefore) {
                    after++;
                    if (until == Long.MAX_VALUE)
                        until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                }
                assertThat(p.isAlive()).as("still running; log:%n%s", read(log)).isTrue();
                Thread.sleep(250);
            }
            assertThat(during).as("probes answered while start-up waited").isPositive();
            assertThat(after)
                    .as("probes answered after start-up gave up waiting")
                    .isPositive();
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
