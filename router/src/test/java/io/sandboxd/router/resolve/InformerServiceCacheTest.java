package io.sandboxd.router.resolve;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.sandboxd.router.authz.AllowAllAuthorizer;
import io.sandboxd.router.testing.HttpBackend;
import io.sandboxd.router.testing.RouterFixture;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Service informer against the mock API server: DNS routing reaches a Sandbox's own Service and
 * never {@code default/kubernetes} or any Service the controller did not make, even when its name
 * resolves (here every name resolves to the loopback backend, so a wrong pass would show as a 200).
 */
@EnableKubernetesMockClient(crud = true)
class InformerServiceCacheTest {
    KubernetesMockServer server;
    KubernetesClient client;
    HttpBackend backend;
    InformerServiceCache services;
    RouterFixture router;

    @BeforeEach
    void start() throws Exception {
        backend = new HttpBackend();
    }

    @AfterEach
    void stop() {
        if (router != null) {
            router.close();
        }
        if (services != null) {
            services.close();
        }
        backend.close();
    }

    private void startRouter() throws Exception {
        services = new InformerServiceCache(client, null);
        services.start().toCompletableFuture().get(90, TimeUnit.SECONDS);
        var everyName = new java.util.HashMap<String, List<java.net.InetAddress>>();
        for (String n : List.of("sb.team-a", "kubernetes.default", "plain.team-a", "alias.team-a", "fake.team-a")) {
            everyName.put(n + ".svc." + RouterFixture.DOMAIN, List.of(RouterFixture.LOOPBACK));
        }
        router = new RouterFixture(
                RouterFixture.config().withAddressPolicy(RouterFixture.loopbackAllowed()),
                PodCache.DISABLED,
                services,
                new AllowAllAuthorizer(),
                Map.copyOf(everyName));
    }

    private HttpResponse<String> get(String ns, String id) throws Exception {
        return router.http.send(
                HttpRequest.newBuilder(router.uri("/svc"))
                        .timeout(Duration.ofSeconds(30))
                        .header("X-Sandbox-ID", id)
                        .header("X-Sandbox-Namespace", ns)
                        .header("X-Sandbox-Port", Integer.toString(backend.port()))
                        .build(),
                BodyHandlers.ofString());
    }

    @Test
    void onlySandboxServicesAreLookedUpAndReached() throws Exception {
        client.services()
                .inNamespace("team-a")
                .resource(SandboxPodsTest.sandboxService("team-a", "sb", "sb"))
                .create();
        client.services()
                .inNamespace("default")
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName("kubernetes")
                        .withNamespace("default")
                        .endMetadata()
                        .withNewSpec()
                        .withClusterIP("10.96.0.1")
                        .endSpec()
                        .build())
                .create();
        client.services()
                .inNamespace("team-a")
                .resource(new ServiceBuilder(SandboxPodsTest.sandboxService("team-a", "plain", "x"))
                        .editMetadata()
                        .withOwnerReferences(List.of())
                        .endMetadata()
                        .build())
                .create();
        client.services()
                .inNamespace("team-a")
                .resource(new ServiceBuilder(SandboxPodsTest.sandboxService("team-a", "alias", "alias"))
                        .editSpec()
                        .withType("ExternalName")
                        .withExternalName("kubernetes.default.svc.cluster.local")
                        .withClusterIP(null)
                        .endSpec()
                        .build())
                .create();
        startRouter();
        assertThat(services.hasSynced()).isTrue();

        assertThat(get("team-a", "sb").statusCode()).isEqualTo(200);
        assertThat(router.dnsLookups).containsExactly("sb.team-a.svc." + RouterFixture.DOMAIN);
        for (String[] r :
                new String[][] {{"default", "kubernetes"}, {"team-a", "plain"}, {"team-a", "alias"}, {"team-a", "fake"}
                }) {
            HttpResponse<String> res = get(r[0], r[1]);
            assertThat(res.statusCode()).as(r[0] + "/" + r[1]).isEqualTo(502);
            assertThat(res.body())
                    .isEqualTo("{\"detail\":\"Could not connect to the backend sandbox: " + r[1] + " (no Service "
                            + r[0] + "/" + r[1] + " owned by a Sandbox)\"}");
        }
        assertThat(router.dnsLookups).containsExactly("sb.team-a.svc." + RouterFixture.DOMAIN);
        assertThat(backend.seen).hasSize(1);

        // Deleting the Service withdraws it.
        client.services().inNamespace("team-a").withName("sb").delete();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (services.isSandboxService("team-a", "sb")) {
            assertThat(System.nanoTime()).as("service removal").isLessThan(deadline);
            Thread.sleep(20);
        }
        assertThat(get("team-a", "sb").statusCode()).isEqualTo(502);
    }
}
