package io.sandboxd.controller.app;

import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import java.util.concurrent.TimeUnit;

/**
 * The vert.x instance that carries every byte between the operator's client and the API server:
 * requests, responses and watch streams, on one event loop per core.
 *
 * <p>Why not fabric8's own instance: it takes vert.x's default of two event loops per core, made
 * for servers with thousands of connections. The controller has a few dozen (its watches and the
 * pooled request connections), and each loop woke on its own for its share of them. One loop per
 * core on a 2-core machine, controller CPU per claim (bench {@code controller}, runs interleaved):
 * warm 3.35-3.53 → 3.06-3.36 ms to all bound and 5.30-5.72 → 4.52-5.17 ms until the pool refilled
 * (five runs each), cold 4.05-4.09 → 3.67-3.83 ms (two each); paced p50 latency no worse. One loop
 * on two cores cut a little more CPU (2.92-3.06 ms) but doubled the paced p50 (34-38 against 14
 * ms): a burst's replies then all wait for the one thread.
 *
 * <p>Otherwise as fabric8 makes its own: daemon threads, no file cache, and the JDK's name
 * resolution rather than vert.x's DNS client (so {@code /etc/hosts} and the cluster's search
 * domains apply). fabric8 closes only an instance it made itself, so {@link FabricTaskPool}, which
 * fabric8 tells when the client has closed, closes this one.
 */
final class ApiEventLoops {
    /** vert.x's switch for its own DNS client; read once, when the instance is made. */
    private static final String DISABLE_DNS_RESOLVER = "vertx.disableDnsResolver";

    private final Vertx vertx;

    ApiEventLoops() {
        this(Runtime.getRuntime().availableProcessors());
    }

    ApiEventLoops(int loops) {
        this.vertx = withJdkNameResolution(() -> Vertx.vertx(new VertxOptions()
                .setEventLoopPoolSize(Math.max(1, loops))
                .setUseDaemonThread(true)
                .setFileSystemOptions(
                        new FileSystemOptions().setFileCachingEnabled(false).setClassPathResolvingEnabled(false))));
    }

    /** fabric8's vert.x client factory on these loops. */
    HttpClient.Factory httpClients() {
        return new Vertx5HttpClientFactory(vertx);
    }

    /** Stops the loops; the client's connections must be closed already (fabric8 does that first). */
    void close() {
        try {
            vertx.close().await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // Daemon threads: a loop that does not stop in time ends with the process.
        }
    }

    private static synchronized Vertx withJdkNameResolution(java.util.function.Supplier<Vertx> make) {
        String before = System.getProperty(DISABLE_DNS_RESOLVER);
        System.setProperty(DISABLE_DNS_RESOLVER, "true");
        try {
            return make.get();
        } finally {
            if (before == null) System.clearProperty(DISABLE_DNS_RESOLVER);
            else System.setProperty(DISABLE_DNS_RESOLVER, before);
        }
    }
}
