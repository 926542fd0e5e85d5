package io.sandboxd.router.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP backend on 127.0.0.1 (JDK HttpServer). Records every request's headers and the
 * client ports it saw. Endpoints: /upload (streams, counts and hashes the body), /download?bytes=N,
 * /sse (event, then waits for {@link #releaseNextEvent}), /slow?ms=N, anything else echoes.
 */
public final class HttpBackend implements AutoCloseable {
    /** One received request: method, raw target, headers (lower-cased names). */
    public record Seen(String method, String rawTarget, Map<String, List<String>> headers, int clientPort) {
        public String header(String name) {
            List<String> v = headers.get(name.toLowerCase());
            return v == null || v.isEmpty() ? null : v.get(0);
        }
    }

    private final HttpServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    public final List<Seen> seen = new CopyOnWriteArrayList<>();
    public final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
    private volatile CountDownLatch sseGate = new CountDownLatch(1);

    public HttpBackend() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
        server.setExecutor(pool);
        server.createContext("/", this::handle);
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public Seen last() {
        return seen.isEmpty() ? null : seen.get(seen.size() - 1);
    }

    public void releaseNextEvent() {
        CountDownLatch g = sseGate;
        sseGate = new CountDownLatch(1);
        g.countDown();
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            Map<String, List<String>> h = new java.util.TreeMap<>();
            x.getRequestHeaders().forEach((k, v) -> h.put(k.toLowerCase(), List.copyOf(v)));
            String raw = x.getRequestURI().getRawPath()
                    + (x.getRequestURI().getRawQuery() == null
                            ? ""
                            : "?" + x.getRequestURI().getRawQuery());
            seen.add(new Seen(x.getRequestMethod(), raw, h, x.getRemoteAddress().getPort()));
            clientPorts.add(x.getRemoteAddress().getPort());
            String path = x.getRequestURI().getPath();
            switch (path) {
                case "/upload" -> upload(x);
                case "/download" -> download(x, Long.parseLong(query(x, "bytes")));
                case "/sse" -> sse(x, Integer.parseInt(query(x, "events")));
                case "/slow" -> slow(x, Long.parseLong(query(x, "ms")));
                default -> echo(x, raw);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String query(HttpExchange x, String key) {
        for (String kv : x.getRequestURI().getQuery().split("&")) {
            if (kv.startsWith(key + "=")) {
                return kv.substring(key.length() + 1);
            }
        }
        throw new IllegalArgumentException("missing " + key);
    }

    private void echo(HttpExchange x, String raw) throws IOException {
        byte[] b = (x.getRequestMethod() + " " + raw + "\n").getBytes(StandardCharsets.UTF_8);
        x.getRequestBody().transferTo(OutputStream.nullOutputStream());
        x.getResponseHeaders().set("Content-Type", "text/plain");
        x.getResponseHeaders().set("X-Backend-Port", Integer.toString(port()));
        if ("HEAD".equals(x.getRequestMethod())) {
            x.getResponseHeaders().set("Content-Length", Integer.toString(b.length));
            x.sendResponseHeaders(200, -1);
            return;
        }
        x.sendResponseHeaders(200, b.length);
        x.getResponseBody().write(b);
    }

    private void upload(HttpExchange x) throws IOException {
        MessageDigest md = sha256();
        long n = 0;
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = x.getRequestBody()) {
            int r;
            while ((r = in.read(buf)) > 0) {
                md.update(buf, 0, r);
                n += r;
            }
        }
        byte[] b = (n + " " + HexFormat.of().formatHex(md.digest())).getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(200, b.length);
        x.getResponseBody().write(b);
    }

    private void download(HttpExchange x, long bytes) throws IOException {
        x.getResponseHeaders().set("Content-Type", "application/octet-stream");
        x.sendResponseHeaders(200, 0); // chunked: the proxy cannot know the length up front
        try (OutputStream out = x.getResponseBody()) {
            PatternStream.write(out, bytes);
        }
    }

    private void sse(HttpExchange x, int events) throws IOException, InterruptedException {
        x.getResponseHeaders().set("Content-Type", "text/event-stream");
        x.getResponseHeaders().set("Cache-Control", "no-cache");
        x.sendResponseHeaders(200, 0);
        OutputStream out = x.getResponseBody();
        for (int i = 1; i <= events; i++) {
            CountDownLatch gate = sseGate;
            out.write(("id: " + i + "\ndata: event-" + i + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            if (i < events && !gate.await(30, TimeUnit.SECONDS)) {
                break; // the test never asked for the next event
            }
        }
        out.close();
    }

    private void slow(HttpExchange x, long ms) throws IOException, InterruptedException {
        Thread.sleep(ms);
        x.sendResponseHeaders(200, 2);
        x.getResponseBody().write("ok".getBytes(StandardCharsets.UTF_8));
    }

    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
