package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.metrics.Metrics;
import io.sandboxd.testkit.DaemonSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every daemon metric name the documentation mentions (READMEs and docs/, apart from the
 * controller's and router's own sections) is one the daemon's /metrics exports.
 */
class DocumentedMetricsTest {
    private static final Pattern NAME = Pattern.compile("\\bsandboxd_[a-z_]+[a-z]\\b");
    private static final Pattern OTHER_SECTIONS = Pattern.compile(
            "<!-- SECTION:(controller|router|install|image) -->.*?<!-- /SECTION:\\1 -->", Pattern.DOTALL);

    @TempDir
    Path root;

    static Set<String> documentedNames() throws Exception {
        Path repo = DaemonSpec.repoRoot();
        Set<String> names = new TreeSet<>();
        try (Stream<Path> docs = Stream.concat(
                Stream.of(repo.resolve("README.md"), repo.resolve("daemon/README.md")),
                Files.list(repo.resolve("docs")))) {
            for (Path p : docs.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .toList()) {
                String text = OTHER_SECTIONS.matcher(Files.readString(p)).replaceAll("");
                Matcher m = NAME.matcher(text);
                while (m.find()) {
                    names.add(m.group());
                }
            }
        }
        return names;
    }

    @Test
    void everyDocumentedDaemonMetricIsExported() throws Exception {
        Set<String> documented = documentedNames();
        assertThat(documented).as("names found in the docs").contains("sandboxd_processes_started_total");
        Daemon d = new Daemon(TestConfig.forRoot(root.toRealPath()), new Metrics(), TestConfig.silentLog());
        try {
            d.start();
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", d.grpcPort())
                    .usePlaintext()
                    .build();
            try {
                // one process, so the per-call and per-process series exist
                ProcessServiceGrpc.newBlockingStub(ch)
                        .execute(ExecuteRequest.newBuilder()
                                .setConfig(ProcessConfig.newBuilder()
                                        .addCommand("/bin/echo")
                                        .addCommand("x"))
                                .build());
            } finally {
                ch.shutdownNow();
            }
            HttpClient http = HttpClient.newHttpClient();
            URI metrics = URI.create("http://127.0.0.1:" + d.restPort() + "/metrics");
            // a REST request is recorded once its response completed: scrape until it shows
            String exported = "";
            for (int i = 0; i < 100 && !exported.contains("sandboxd_http_server_requests_seconds"); i++) {
                exported = http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString())
                        .body();
                Thread.sleep(50);
            }
            Set<String> families = new TreeSet<>();
            for (String line : exported.split("\n")) {
                if (line.startsWith("# TYPE ")) {
                    String family = line.split(" ")[2];
                    families.add(family);
                    // a counter's samples carry _total; a histogram's are its family plus _bucket/_count/_sum
                    families.add(family + "_total");
                }
            }
            for (String name : documented) {
                assertThat(families)
                        .as("documented metric " + name + " in /metrics")
                        .contains(name);
            }
        } finally {
            d.shutdown();
        }
    }
}
