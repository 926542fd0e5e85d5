package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The operator's client on its own vert.x loops: as many as asked for, and gone when it closes. */
class ApiEventLoopsTest {
    private static final String POD = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
            + "\"namespace\":\"default\",\"resourceVersion\":\"7\"}}";

    private HttpServer server;
    /** Holds every request until all four have arrived, so they need four connections at once. */
    private final CountDownLatch allArrived = new CountDownLatch(4);

    @BeforeEach
    void serve() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            allArrived.countDown();
            try {
                allArrived.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] body = POD.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void fourConcurrentRequestsShareTheOneLoopAskedForAndClosingTheClientStopsIt() throws Exception {
        Set<Thread> before = vertxThreads();
        KubernetesClient client = Controllers.client(
                new ConfigBuilder()
                        .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
                        .withNamespace("default")
                        .build(),
                1);
        List<Thread> ours;
        try {
            List<CompletableFuture<Pod>> gets = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                gets.add(CompletableFuture.supplyAsync(
                        () -> client.pods().inNamespace("default").withName("p").get()));
            }
            for (CompletableFuture<Pod> get : gets) {
                assertThat(get.get(20, TimeUnit.SECONDS).getMetadata().getResourceVersion())
                        .isEqualTo("7");
            }
            ours = vertxThreads().stream().filter(t -> !before.contains(t)).toList();
            assertThat(ours.stream().map(Thread::getName).filter(n -> n.startsWith("vert.x-eventloop")))
                    .hasSize(1);
            assertThat(ours).allMatch(Thread::isDaemon);
        } finally {
            client.close();
        }
        for (Thread t : ours) {
            t.join(10_000);
            assertThat(t.isAlive())
                    .as("%s after the client closed", t.getName())
                    .isFalse();
        }
    }

    private static Set<Thread> vertxThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("vert.x") || t.getName().startsWith("vertx"))
                .collect(Collectors.toSet());
    }
}
