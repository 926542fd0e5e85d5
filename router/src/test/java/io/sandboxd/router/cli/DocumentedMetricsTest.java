package io.sandboxd.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.PrometheusText;
import io.sandboxd.testkit.RunningDaemon;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every router metric name the documentation mentions (the README's router section,
 * router/README.md, docs/) is one the router's live /metrics exports under exactly that name: the
 * router is started as main() starts it (admin port, allow-all, no informers) and routes a request
 * to the real daemon (the packaged jar, a process on loopback) before its admin port is scraped.
 */
class DocumentedMetricsTest {
    private static final Pattern NAME = Pattern.compile("\\bsandbox_router_[a-z_]*[a-z]\\b");
    private static final Pattern ROUTER_SECTION =
            Pattern.compile("<!-- SECTION:router -->.*?<!-- /SECTION:router -->", Pattern.DOTALL);

    @TempDir
    Path root;

    static Set<String> documentedNames() throws Exception {
        Path repo = DaemonSpec.repoRoot();
        StringBuilder docs = new StringBuilder();
        Matcher section = ROUTER_SECTION.matcher(Files.readString(repo.resolve("README.md")));
        while (section.find()) {
            docs.append(section.group()).append('\n');
        }
        docs.append(Files.readString(repo.resolve("router/README.md")));
        try (Stream<Path> shared = Files.list(repo.resolve("docs"))) {
            for (Path p : shared.filter(p -> p.toString().endsWith(".md")).toList()) {
                docs.append('\n').append(Files.readString(p));
            }
        }
        Set<String> names = new TreeSet<>();
        Matcher m = NAME.matcher(docs);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    @Test
    void everyDocumentedRouterMetricIsExported() throws Exception {
        Set<String> documented = documentedNames();
        assertThat(documented)
                .as("names found in the docs")
                .contains("sandbox_router_request_duration_seconds", "sandbox_router_resolutions_total");
        RouterMain main = new RouterMain();
        new CommandLine(main)
                .parseArgs(
                        "--bind=127.0.0.1",
                        "--port=0",
                        "--admin-port=0",
                        "--no-cache-enabled",
                        "--allow-loopback-pod-ip",
                        "--io-threads=2");
        try (RunningDaemon daemon = DaemonSpec.packagedJar().withRootDir(root).start();
                RouterMain.Running router = main.start()) {
            // HTTP/1.1: the JDK client's default h2c upgrade would make the router speak HTTP/2 to the REST port
            HttpClient http =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> routed = http.send(
                    HttpRequest.newBuilder(URI.create(
                                    "http://127.0.0.1:" + router.router().port() + "/v1/health"))
                            .timeout(Duration.ofSeconds(60))
                            .header("X-Sandbox-ID", "sb")
                            .header("X-Sandbox-Pod-IP", "127.0.0.1")
                            .header("X-Sandbox-Port", Integer.toString(daemon.restPort()))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(routed.statusCode()).as(routed.body()).isEqualTo(200);
            URI metrics = URI.create("http://127.0.0.1:" + router.admin().port() + "/metrics");
            // the request is recorded once its response completed: scrape until it shows
            String exposition = "";
            for (int i = 0;
                    i < 100 && !exposition.contains("sandbox_router_request_duration_seconds_count{code=\"2xx\"} 1");
                    i++) {
                Thread.sleep(i == 0 ? 0 : 50);
                exposition = http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString())
                        .body();
            }
            Set<String> exported = PrometheusText.names(exposition);
            for (String name : documented) {
                assertThat(exported)
                        .as("documented metric " + name + " in /metrics")
                        .contains(name);
            }
            // the latency histograms publish buckets, so percentiles can be taken across replicas
            assertThat(exposition)
                    .contains("sandbox_router_request_duration_seconds_bucket{code=\"2xx\",le=\"0.001\"}")
                    .contains("sandbox_router_authz_duration_seconds_bucket{cached=\"true\",le=\"1.0E-4\"}");
        }
    }
}
