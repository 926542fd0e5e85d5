package io.sandboxd.controller.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/** /metrics (Prometheus), /healthz and /readyz on one small JDK HTTP server. */
public final class HttpEndpoints implements AutoCloseable {
    private final HttpServer server;

    public HttpEndpoints(String host, int port, PrometheusMeterRegistry registry, BooleanSupplier ready)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, port), 16);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "http-endpoints");
            t.setDaemon(true);
            return t;
        }));
        server.createContext(
                "/metrics", ex -> send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.createContext("/healthz", ex -> send(ex, 200, "text/plain", "ok\n"));
        server.createContext("/readyz", ex -> {
            boolean ok = ready.getAsBoolean();
            send(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "not ready\n");
        });
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
