package io.sandboxd.router.resolve;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fabric8 informer cache against the mock API server in CRUD mode, and routing through it. */
@EnableKubernetesMockClient(crud = true)
class InformerPodCacheTest {
    KubernetesMockServer server;
    KubernetesClient client;

    HttpBackend backend;
    InformerPodCache cache;
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
        if (cache != null) {
            cache.close();
        }
        backend.close();
    }

    static Pod sandboxPod(String ns, String podName, String sandbox, String uid, boolean ready, boolean warm) {
        PodBuilder b = new PodBuilder()
                .withNewMetadata()
                .withName(podName)
                .withNamespace(ns)
                .addToLabels(SandboxPods.NAME_HASH_LABEL, "0badcafe")
                .addNewOwnerReference()
                .withApiVersion("agents.x-k8s.io/v1beta1")
                .withKind("Sandbox")
                .withName(sandbox)
                .withUid(uid)
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("sandbox")
                .withImage("sandboxd:test")
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .withPodIP("127.0.0.1")
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus();
        if (warm) {
            b.editMetadata()
                    .addToLabels(SandboxPods.WARM_POOL_LABEL, "91dd7983")
                    .endMetadata();
        }
        return b.build();
    }

    private void startCache() throws Exception {
        cache = new InformerPodCache(client, null);
        cache.start().toCompletableFuture().get(90, TimeUnit.SECONDS);
        router = new RouterFixture(
                RouterFixture.config().withAddressPolicy(RouterFixture.loopbackAllowed()),
                cache,
                new AllowAllAuthorizer(),
                List.of());
    }

    private static void await(BooleanSupplier cond, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!cond.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out waiting for " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private HttpResponse<String> get(String ns, String id, String uid) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(router.uri("/cached"))
                .timeout(Duration.ofSeconds(30))
                .header("X-Sandbox-ID", id)
                .header("X-Sandbox-Namespace", ns)
                .header("X-Sandbox-Port", Integer.toString(backend.port()));
        if (uid != null) {
            b.header("X-Sandbox-UID", uid);
        }
        return router.http.send(b.build(), BodyHandlers.ofString());
    }

    @Test
    void readyPodIsReachedThroughTheCacheWithoutDns() throws Exception {
        client.pods()
                .inNamespace("team-a")
                .resource(sandboxPod("team-a", "sb-a", "sb-a", "uid-a", true, false))
                .create();
        startCache();
        assertThat(cache.hasSynced()).isTrue();
        await(() -> "127.0.0.1".equals(cache.podIpByName("team-a", "sb-a")), "cache entry");

        HttpResponse<String> r = get("team-a", "sb-a", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(router.dnsLookups).isEmpty(); // the cache answered: DNS was never asked
        assertThat(router.metrics.resolvedCount(ResolvedTarget.Source.CACHE)).isEqualTo(1);
        assertThat(backend.last().header("host")).isEqualTo("127.0.0.1:" + backend.port());
        assertThat(router.registry.scrape()).contains("sandbox_router_cache_pods 1.0");
    }

    @Test
    void podsThatAreNotReadyAreNotRoutedUntilTheyBecomeReady() throws Exception {
        client.pods()
                .inNamespace("default")
                .resource(sandboxPod("default", "sb-b", "sb-b", "uid-b", false, false))
                .create();
        startCache();
        HttpResponse<String> miss = get("default", "sb-b", null);
        assertThat(miss.statusCode()).isEqualTo(502);
        assertThat(router.dnsLookups).isEmpty(); // no sandbox Service known: its name is never looked up

        client.pods()
                .inNamespace("default")
                .resource(sandboxPod("default", "sb-b", "sb-b", "uid-b", true, false))
                .update();
        await(() -> cache.podIpByName("default", "sb-b") != null, "pod to become Ready in the cache");
        assertThat(get("default", "sb-b", null).statusCode()).isEqualTo(200);

        client.pods().inNamespace("default").withName("sb-b").delete();
        await(() -> cache.podIpByName("default", "sb-b") == null, "pod removal");
    }

    @Test
    void unclaimedWarmPoolPodsAreReachableByUidOnly() throws Exception {
        client.pods()
                .inNamespace("default")
                .resource(sandboxPod("default", "pool-x1", "pool-x1", "uid-w", true, true))
                .create();
        startCache();
        await(() -> cache.podIpByUid("default", "pool-x1", "uid-w") != null, "uid entry");
        assertThat(cache.podIpByName("default", "pool-x1")).isNull();
        assertThat(get("default", "pool-x1", null).statusCode()).isEqualTo(502);
        assertThat(get("default", "pool-x1", "uid-w").statusCode()).isEqualTo(200);
        // The UID reaches only the sandbox it belongs to: authorization is decided on namespace/name.
        assertThat(cache.podIpByUid("other-ns", "pool-x1", "uid-w")).isNull();
        assertThat(cache.podIpByUid("default", "someone-else", "uid-w")).isNull();
        assertThat(get("other-ns", "pool-x1", "uid-w").statusCode()).isEqualTo(502);
    }

    @Test
    void unlabelledPodsAreIgnored() throws Exception {
        Pod p = sandboxPod("default", "plain", "plain", "uid-p", true, false);
        p.getMetadata().getLabels().clear();
        client.pods().inNamespace("default").resource(p).create();
        startCache();
        Thread.sleep(300);
        assertThat(cache.podIpByName("default", "plain")).isNull();
        assertThat(cache.size()).isZero();
    }
}
