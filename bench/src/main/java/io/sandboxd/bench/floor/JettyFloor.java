package io.sandboxd.bench.floor;

import io.grpc.Server;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Jetty 12's core server without Javalin and without the servlet layer (no Kotlin, no jakarta):
 * one {@code Handler} answering {@code /v1/health}, the daemon's thread pool, and the same gRPC
 * listener as {@link JavalinFloor}. Between it and the Javalin floor lies what Javalin itself
 * (with ee10 servlets and Kotlin) costs; between it and the Netty floor, Jetty's core.
 */
public final class JettyFloor {
    private static final ByteBuffer OK = ByteBuffer.wrap("{\"status\":\"ok\"}".getBytes(StandardCharsets.US_ASCII))
            .asReadOnlyBuffer();

    private JettyFloor() {}

    public static void main(String[] args) throws Exception {
        FloorFlags flags = FloorFlags.parse(args);
        QueuedThreadPool pool = new QueuedThreadPool(250, 2, 60_000);
        pool.setName("JettyServerThreadPool");
        org.eclipse.jetty.server.Server rest = new org.eclipse.jetty.server.Server(pool);
        ServerConnector c = new ServerConnector(rest);
        c.setHost(flags.host());
        c.setPort(flags.restPort());
        rest.addConnector(c);
        rest.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                if (!request.getHttpURI().getPath().equals("/v1/health")) {
                    return false; // the server answers 404
                }
                response.setStatus(HttpStatus.OK_200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.write(true, OK.slice(), callback);
                return true;
            }
        });
        rest.start();
        Server grpc = FloorGrpc.start(flags, FloorGrpc.group(1), FloorGrpc.group(0));
        grpc.awaitTermination(); // SIGTERM ends the JVM (and writes a training run's archive)
    }
}
