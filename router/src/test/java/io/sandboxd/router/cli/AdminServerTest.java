package io.sandboxd.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.sandboxd.router.admin.AdminServer;
import io.sandboxd.router.authz.AllowAllAuthorizer;
import io.sandboxd.router.metrics.RouterMetrics;
import io.sandboxd.router.proxy.Transport;
import io.sandboxd.router.resolve.PodCache;
import io.sandboxd.router.testing.RouterFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** /healthz, /readyz (follows the informer sync) and /metrics. */
class AdminServerTest {
    final HttpClient http = HttpClient.newHttpClient();

    private int status(int port, String path) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        BodyHandlers.ofString())
                .statusCode();
    }

    @Test
    void readinessFollowsTheCacheSync() throws Exception {
        AtomicBoolean synced = new AtomicBoolean(false);
        PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new RouterMetrics(reg, PodCache.DISABLED);
        EventLoopGroup g = Transport.group(1, "admin-test");
        try (AdminServer admin = new AdminServer(reg, synced::get, g).start("127.0.0.1", 0)) {
            assertThat(status(admin.port(), "/healthz")).isEqualTo(200);
            assertThat(status(admin.port(), "/readyz")).isEqualTo(503);
            synced.set(true);
            assertThat(status(admin.port(), "/readyz")).isEqualTo(200);
            assertThat(status(admin.port(), "/nope")).isEqualTo(404);
            String metrics = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + "/metrics"))
                                    .build(),
                            BodyHandlers.ofString())
                    .body();
            assertThat(metrics)
                    .contains("sandbox_router_upgrades_active")
                    .contains("sandbox_router_request_duration_seconds");
        } finally {
            g.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void proxyPortReadyzIsNotReadyBeforeSync() throws Exception {
        PodCache unsynced = new PodCache() {
            @Override
            public String podIpByName(String n, String s) {
                return null;
            }

            @Override
            public String podIpByUid(String ns, String n, String u) {
                return null;
            }

            @Override
            public void evict(String n, String s, String u) {}

            @Override
            public boolean hasSynced() {
                return false;
            }

            @Override
            public int size() {
                return 0;
            }
        };
        try (RouterFixture r =
                new RouterFixture(RouterFixture.config(), unsynced, new AllowAllAuthorizer(), List.of())) {
            assertThat(status(r.port(), "/readyz")).isEqualTo(503);
            assertThat(status(r.port(), "/healthz")).isEqualTo(200);
        }
    }
}
