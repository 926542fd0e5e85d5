package io.sandboxd.controller.app;

import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The vert.x instance that carries every byte between the operator's client and the API server:
 * requests, responses and watch streams, on {@code --api-event-loops} event loops (default one per core).
 *
 * <p>Why not fabric8's own instance: it takes vert.x's default of two event loops per core, made
 * for servers with thousands of connections. The controller has a few dozen (its watches and the
 * pooled request connections), and each loop woke on its own for its share of them. One loop per
 * core on a 2-core machine, warm claims paced at 300/s (bench {@code controller}, runs
 * interleaved): CPU per claim to all bound median 3.47 → 3.10 ms, until the pool refilled 5.40 →
 * 4.88 ms; paced latency swung more between runs than between builds (p50 median 15 → 18 ms, on a
 * saturated machine), and at 150/s and 50/s it was lower too (p50 6.1 → 4.9, 2.7 → 2.3 ms). One
 * loop on two cores cut a little more CPU but every reply then waited for the one thread (p50
 * 22-43 ms). The controller README's "One event loop per core" has the runs.
 *
 * <p>Otherwise as fabric8 makes its own: daemon threads, no file cache, and the JDK's name
 * resolution rather than vert.x's DNS client. fabric8 closes only an instance it made itself, so
 * {@link FabricTaskPool}, which fabric8 tells when the client has closed, closes this one.
 */
final class ApiEventLoops {
    /** vert.x's switch for its own DNS client; read once, when the instance is made. */
    private static final String DISABLE_DNS_RESOLVER = "vertx.disableDnsResolver";

    private final Vertx vertx;

    /** The default of {@code --api-event-loops}: one per core the JVM sees. */
    static int onePerCore() {
        return Runtime.getRuntime().availableProcessors();
    }

    ApiEventLoops(int loops) {
        if (loops < 1) throw new IllegalArgumentException("at least 1 event loop, not " + loops);
        this.vertx = withJdkNameResolution(() -> Vertx.vertx(new VertxOptions()
                .setEventLoopPoolSize(loops)
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
            // Not stopped within 10 s, closed from one of its own loops (which cannot wait for
            // itself), or interrupted (vert.x rethrows that unchecked): the close goes on without the
            // wait, and the loops' daemon threads end with the process at the latest.
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
        }
    }

    private static synchronized Vertx withJdkNameResolution(Supplier<Vertx> make) {
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
