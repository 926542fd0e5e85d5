package io.sandboxd.bench.floor;

import io.grpc.Server;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Javalin floor (issue 22): REST {@code /v1/health} on Javalin/Jetty configured as the
 * daemon's RestServer does (its thread pool, no banner, no compression, no ETags, one connector
 * on the given host), and the daemon's gRPC API (no-op) on grpc-netty with the daemon's event
 * loops (one boss, default workers). What the daemon's frameworks cost before any daemon code.
 */
public final class JavalinFloor {
    private JavalinFloor() {}

    public static void main(String[] args) throws Exception {
        serve(FloorFlags.parse(args), JavalinFloor::health);
    }

    /** Starts both listeners, {@code health} answering {@code GET|HEAD /v1/health}. */
    static void serve(FloorFlags flags, Handler health) throws Exception {
        Javalin rest = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.http.compressionStrategy = io.javalin.compression.CompressionStrategy.NONE;
            cfg.http.generateEtags = false;
            // the daemon's pool: 2 threads kept, not Javalin's 8 (RestServer.threadPool)
            QueuedThreadPool pool = new QueuedThreadPool(250, 2, 60_000);
            pool.setName("JettyServerThreadPool");
            cfg.jetty.threadPool = pool;
            cfg.jetty.addConnector((server, httpConfig) -> {
                ServerConnector c = new ServerConnector(server, new HttpConnectionFactory(httpConfig));
                c.setHost(flags.host());
                c.setPort(flags.restPort());
                return c;
            });
            cfg.routes.get("/v1/health", health);
            cfg.routes.head("/v1/health", health);
        });
        rest.start();
        Server grpc = FloorGrpc.start(flags, FloorGrpc.group(1), FloorGrpc.group(0));
        grpc.awaitTermination(); // SIGTERM ends the JVM (and writes a training run's archive)
    }

    static void health(Context ctx) {
        ctx.contentType("application/json").result("{\"status\":\"ok\"}");
    }
}
