package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sandboxd.controller.app.ControllerMeters;
import io.sandboxd.controller.app.HttpEndpoints;
import io.sandboxd.testkit.PrometheusText;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every controller metric name the documentation mentions is one the controller's live /metrics
 * exports, under exactly that name: the controller runs on fabric8's mock API server with the
 * registry and HTTP endpoints main() uses, reconciles a Sandbox whose first Pod create fails (so
 * JOSDK's failure and retry counters exist too), and /metrics is scraped over HTTP.
 */
class DocumentedMetricsIT {
    /** The controller's own names (sandboxd_claim_..., sandboxd_controller_...) and JOSDK's. */
    private static final String JOSDK = "reconciliations_[a-z_]*[a-z]|custom_resources|events_received_[a-z_]*[a-z]";

    private static final Pattern IN_CONTROLLER_DOCS = Pattern.compile("\\b(?:sandboxd_[a-z_]*[a-z]|" + JOSDK + ")\\b");
    private static final Pattern IN_SHARED_DOCS =
            Pattern.compile("\\b(?:sandboxd_(?:claim|controller)_[a-z_]*[a-z]|" + JOSDK + ")\\b");
    private static final Pattern CONTROLLER_SECTION =
            Pattern.compile("<!-- SECTION:controller -->.*?<!-- /SECTION:controller -->", Pattern.DOTALL);

    /** Names in the README's controller section and controller/README.md, and controller names in docs/. */
    static Set<String> documentedNames() throws Exception {
        Path repo = Path.of(System.getProperty("controller.dir")).getParent();
        Set<String> names = new TreeSet<>();
        Matcher section = CONTROLLER_SECTION.matcher(Files.readString(repo.resolve("README.md")));
        while (section.find()) {
            collect(IN_CONTROLLER_DOCS, section.group(), names);
        }
        collect(IN_CONTROLLER_DOCS, Files.readString(repo.resolve("controller/README.md")), names);
        try (Stream<Path> docs = Files.list(repo.resolve("docs"))) {
            for (Path p : docs.filter(p -> p.toString().endsWith(".md")).toList()) {
                collect(IN_SHARED_DOCS, Files.readString(p), names);
            }
        }
        return names;
    }

    private static void collect(Pattern name, String text, Set<String> into) {
        Matcher m = name.matcher(text);
        while (m.find()) {
            into.add(m.group());
        }
    }

    /**
     * The CRUD mock, except that Pod creates are refused until JOSDK has resubmitted a reconcile as a
     * retry: failed reconciles, a retry, then success. (The first resubmission can come at once,
     * without a retry count, when the failed reconcile's own status write queued an event.)
     */
    static final class PodCreatesFailUntil extends KubernetesCrudDispatcher {
        private final BooleanSupplier done;

        PodCreatesFailUntil(BooleanSupplier done) {
            this.done = done;
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            if ("POST".equals(request.getMethod())
                    && request.getPath().matches("/api/v1/namespaces/[^/]+/pods(\\?.*)?")
                    && !done.getAsBoolean()) {
                // a 403, not a 5xx: fabric8 retries 5xx answers itself, so the reconcile would never see it
                return new MockResponse()
                        .setResponseCode(403)
                        .setHeader("Content-Type", "application/json")
                        .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                                + "\"message\":\"injected\",\"reason\":\"Forbidden\",\"code\":403}");
            }
            return super.dispatch(request);
        }
    }

    @Test
    void everyDocumentedControllerMetricIsExported() throws Exception {
        Set<String> documented = documentedNames();
        assertThat(documented)
                .as("names found in the docs")
                .contains("sandboxd_claim_bind_seconds", "reconciliations_started_total");
        PrometheusMeterRegistry registry = ControllerMeters.prometheus();
        try (ControllerHarness h = new ControllerHarness(
                        new PodCreatesFailUntil(() ->
                                registry.find("reconciliations.retries.total").counter() != null),
                        registry);
                HttpEndpoints http = new HttpEndpoints("127.0.0.1", 0, registry, () -> true)) {
            String ns = ControllerHarness.namespace("metrics");
            h.client.resource(ControllerHarness.sandbox(ns, "m")).create();
            HttpClient client = HttpClient.newHttpClient();
            URI metrics = URI.create("http://127.0.0.1:" + http.port() + "/metrics");
            Set<String> exported = new TreeSet<>();
            // the failed reconcile, its retry and the success that follows are counted as they happen
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!exported.containsAll(documented) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                exported = PrometheusText.names(
                        client.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString())
                                .body());
            }
            for (String name : documented) {
                assertThat(exported)
                        .as("documented metric " + name + " in /metrics")
                        .contains(name);
            }
            // the histograms publish buckets, so percentiles can be taken across replicas
            assertThat(exported)
                    .contains(
                            "reconciliations_execution_duration_seconds_bucket", "sandboxd_claim_bind_seconds_bucket");
        }
    }
}
