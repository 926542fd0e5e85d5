package io.sandboxd.controller.standin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sandboxd.controller.standin.ObjectStore.ApiException;
import io.sandboxd.controller.standin.ObjectStore.Event;
import io.sandboxd.controller.standin.ObjectStore.Kind;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Kubernetes API stand-in that is not the bottleneck: the REST paths, verbs, status codes and
 * watch protocol (HTTP streaming, one JSON event per line) that fabric8 and JOSDK use, over
 * {@link ObjectStore}, on the JDK HTTP server with one thread per request (no request waits
 * for a worker). Every request is logged with its arrival and completion time, so the API's own
 * time can be subtracted from what a client measures. Loopback only.
 */
public final class ApiStandIn implements AutoCloseable {
    public enum Verb {
        GET,
        LIST,
        WATCH,
        CREATE,
        UPDATE,
        PATCH,
        DELETE,
        OTHER;

        public boolean write() {
            return this == CREATE || this == UPDATE || this == PATCH || this == DELETE;
        }

        /** Reads an informer does not serve from its cache. */
        public boolean uncachedRead() {
            return this == GET || this == LIST;
        }
    }

    /**
     * One request: {@code claim} is the SandboxClaim it acts for (the claim itself, or the claim
     * named as controller in the body, as in an adoption patch or a cold create), else null.
     */
    public record Request(
            Verb verb,
            String plural,
            String namespace,
            String name,
            String subresource,
            int code,
            long arrivedNanos,
            long doneNanos,
            String claim) {
        public long serviceNanos() {
            return doneNanos - arrivedNanos;
        }
    }

    /** Called after an event has been written to a watch response. */
    public interface EventSentListener {
        void onSent(Event e, long nanos);
    }

    /**
     * Runs on the request's thread before it reaches the store, so a test can be the other writer
     * of a race at exactly that moment (what it writes lands first).
     */
    public interface RequestHook {
        void before(Verb verb, String plural, String namespace, String name, String subresource, JsonNode body);
    }

    private final ObjectStore store;
    private final HttpServer server;
    private final ExecutorService executor;
    private final java.util.Queue<Request> log = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final List<EventSentListener> sentListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<RequestHook> hooks = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicInteger openWatches = new AtomicInteger();
    private volatile boolean closed;

    public ApiStandIn(ObjectStore store) throws IOException {
        this.store = store;
        // Nagle would add up to 40 ms to small responses on loopback.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        AtomicInteger n = new AtomicInteger();
        executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "api-standin-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public ObjectStore store() {
        return store;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public void addEventSentListener(EventSentListener l) {
        sentListeners.add(l);
    }

    public void addRequestHook(RequestHook h) {
        hooks.add(h);
    }

    /** Every request so far, in completion order. */
    public List<Request> requests() {
        return new ArrayList<>(log);
    }

    public int openWatches() {
        return openWatches.get();
    }

    @Override
    public void close() {
        closed = true;
        server.stop(0);
        executor.shutdownNow();
    }

    // ---- HTTP ----------------------------------------------------------------------------------

    private static final String RESPONSE_READY = "sandboxd.standin.responseReady";

    private record Target(Kind kind, String namespace, String name, String subresource) {}

    private void handle(HttpExchange ex) throws IOException {
        long arrived = System.nanoTime();
        Verb verb = Verb.OTHER;
        Target target = null;
        String claim = null;
        int code = 0;
        try {
            String upgrade = ex.getRequestHeaders().getFirst("Upgrade");
            if (upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket")) {
                // fabric8 tries a WebSocket watch first and falls back to an HTTP watch when the upgrade
                // is answered 200 or 503. Not 503: fabric8 retries a 5xx ten times with backoff before
                // giving up (measured: 11 attempts and 20-30 s per watch start or restart, events held
                // back meanwhile); a 200 makes it fall back at once.
                code = send(ex, 200, status(200, "WebSocketUnsupported", "watches are served over HTTP only"));
                return;
            }
            String path = ex.getRequestURI().getRawPath();
            Map<String, String> q = query(ex.getRequestURI().getRawQuery());
            if (path.equals("/version")) {
                code = send(
                        ex,
                        200,
                        ObjectStore.JSON.readTree(
                                "{\"major\":\"1\",\"minor\":\"33\",\"gitVersion\":\"v1.33.0-standin\"}"));
                return;
            }
            target = target(path);
            if (target == null) {
                code = send(ex, 404, status(404, "NotFound", "the server could not find the requested resource"));
                return;
            }
            String method = ex.getRequestMethod();
            verb = verb(method, target, q);
            if (target.kind().kind().equals("SandboxClaim")) claim = target.name();
            if (verb == Verb.WATCH) {
                code = watch(ex, target, q);
                return;
            }
            JsonNode body = null;
            byte[] raw = ex.getRequestBody().readAllBytes();
            if (raw.length > 0) body = ObjectStore.JSON.readTree(raw);
            if (claim == null && body != null) claim = controllingClaim(body);
            for (RequestHook h : hooks)
                h.before(verb, target.kind().plural(), target.namespace(), target.name(), target.subresource(), body);
            boolean status = "status".equals(target.subresource());
            Kind k = target.kind();
            String ns = target.namespace();
            JsonNode result =
                    switch (verb) {
                        case GET -> store.get(k, ns, target.name());
                        case LIST -> list(k, ns, q);
                        case CREATE -> store.create(k, ns, (ObjectNode) body);
                        case UPDATE -> store.replace(k, ns, target.name(), (ObjectNode) body, status);
                        case PATCH ->
                            store.patch(
                                    k,
                                    ns,
                                    target.name(),
                                    ex.getRequestHeaders().getFirst("Content-Type"),
                                    body,
                                    status);
                        case DELETE -> store.delete(k, ns, target.name(), body);
                        default -> throw new ApiException(405, "MethodNotAllowed", method + " is not supported");
                    };
            code = send(ex, verb == Verb.CREATE ? 201 : 200, result);
        } catch (ApiException e) {
            code = send(ex, e.code, status(e.code, e.reason, e.getMessage()));
        } catch (RuntimeException e) {
            code = send(ex, 400, status(400, "BadRequest", String.valueOf(e.getMessage())));
        } finally {
            long done = ex.getAttribute(RESPONSE_READY) instanceof Long ready ? ready : System.nanoTime();
            log.add(
                    target == null
                            ? new Request(verb, null, null, null, null, code, arrived, done, claim)
                            : new Request(
                                    verb,
                                    target.kind().plural(),
                                    target.namespace(),
                                    target.name(),
                                    target.subresource(),
                                    code,
                                    arrived,
                                    done,
                                    claim));
        }
    }

    private static Verb verb(String method, Target t, Map<String, String> q) {
        return switch (method) {
            case "GET" ->
                t.name() != null
                        ? Verb.GET
                        : "true".equals(q.get("watch")) || "1".equals(q.get("watch")) ? Verb.WATCH : Verb.LIST;
            case "POST" -> Verb.CREATE;
            case "PUT" -> Verb.UPDATE;
            case "PATCH" -> Verb.PATCH;
            case "DELETE" -> Verb.DELETE;
            default -> Verb.OTHER;
        };
    }

    /** /api/v1[/namespaces/NS]/PLURAL[/NAME[/SUB]] and /apis/GROUP/VERSION/... */
    private Target target(String rawPath) {
        List<String> s = new ArrayList<>();
        for (String p : rawPath.split("/")) if (!p.isEmpty()) s.add(URLDecoder.decode(p, StandardCharsets.UTF_8));
        int i;
        String group;
        if (s.size() >= 3 && s.get(0).equals("api")) {
            group = "";
            i = 2;
        } else if (s.size() >= 4 && s.get(0).equals("apis")) {
            group = s.get(1);
            i = 3;
        } else {
            return null;
        }
        String ns = null;
        if (s.size() > i + 2 && s.get(i).equals("namespaces")) {
            ns = s.get(i + 1);
            i += 2;
        }
        Kind k = store.kind(group, s.get(i));
        if (k == null) return null;
        String name = s.size() > i + 1 ? s.get(i + 1) : null;
        String sub = s.size() > i + 2 ? s.get(i + 2) : null;
        return new Target(k, ns, name, sub);
    }

    private JsonNode list(Kind k, String ns, Map<String, String> q) {
        ObjectStore.ListResult r = store.list(k, ns, LabelSelector.parse(q.get("labelSelector")), fieldName(q));
        List<JsonNode> items = r.items();
        long rv = r.resourceVersion();
        String next = null;
        if (q.containsKey("limit")) {
            // continue = "<rv of the first page>:<offset>", so every page reports the first page's version
            // and the informer's watch from it replays whatever changed while paging.
            int limit = Integer.parseInt(q.get("limit"));
            int offset = 0;
            String cont = q.get("continue");
            if (cont != null && !cont.isEmpty()) {
                int colon = cont.indexOf(':');
                rv = Long.parseLong(cont.substring(0, colon));
                offset = Integer.parseInt(cont.substring(colon + 1));
            }
            List<JsonNode> sorted = new ArrayList<>(items);
            sorted.sort((a, b) -> key(a).compareTo(key(b)));
            int end = Math.min(sorted.size(), offset + limit);
            items = sorted.subList(Math.min(offset, end), end);
            if (end < sorted.size()) next = rv + ":" + end;
        }
        ObjectNode out = ObjectStore.JSON.createObjectNode();
        out.put("apiVersion", k.apiVersion());
        out.put("kind", k.kind() + "List");
        ObjectNode md = out.putObject("metadata");
        md.put("resourceVersion", Long.toString(rv));
        if (next != null) md.put("continue", next);
        ArrayNode arr = out.putArray("items");
        items.forEach(arr::add);
        return out;
    }

    private static String key(JsonNode o) {
        return o.path("metadata").path("namespace").asString("") + "/"
                + o.path("metadata").path("name").asString("");
    }

    private static String fieldName(Map<String, String> q) {
        String f = q.get("fieldSelector");
        if (f == null || f.isBlank()) return null;
        for (String part : f.split(",")) {
            String p = part.trim();
            if (p.startsWith("metadata.name="))
                return p.substring("metadata.name=".length()).replaceFirst("^=", "");
        }
        return null;
    }

    private int watch(HttpExchange ex, Target t, Map<String, String> q) throws IOException {
        String rv = q.get("resourceVersion");
        long from = rv == null || rv.isEmpty() ? 0 : Long.parseLong(rv);
        long timeout = q.containsKey("timeoutSeconds") ? Long.parseLong(q.get("timeoutSeconds")) : 1800;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeout);
        ObjectStore.Watch w;
        ex.getResponseHeaders().set("Content-Type", "application/json");
        try {
            w = store.watch(t.kind(), t.namespace(), LabelSelector.parse(q.get("labelSelector")), fieldName(q), from);
        } catch (ApiException e) {
            // As the API server does for an expired version: 200 and one ERROR event, then the end.
            ex.sendResponseHeaders(200, 0);
            try (OutputStream os = ex.getResponseBody()) {
                ObjectNode ev = ObjectStore.JSON.createObjectNode();
                ev.put("type", "ERROR");
                ev.set("object", status(e.code, e.reason, e.getMessage()));
                os.write(ObjectStore.JSON.writeValueAsBytes(ev));
                os.write('\n');
            }
            return 200;
        }
        openWatches.incrementAndGet();
        ex.sendResponseHeaders(200, 0);
        List<Event> batch = new ArrayList<>();
        try (w;
                OutputStream os = ex.getResponseBody()) {
            os.flush();
            while (!closed && System.nanoTime() < deadline) {
                Event first = w.queue.poll(500, TimeUnit.MILLISECONDS);
                if (first == null) continue;
                batch.clear();
                batch.add(first);
                w.queue.drainTo(batch, 255);
                // Stamped before the write: once the bytes are out the controller may act on them before
                // this thread runs again, and a request it makes must never seem to precede the event.
                long sent = System.nanoTime();
                for (Event e : batch) os.write(e.line());
                os.flush();
                for (Event e : batch) for (EventSentListener l : sentListeners) l.onSent(e, sent);
            }
        } catch (IOException | InterruptedException e) {
            // the client went away, or we are stopping
        } finally {
            openWatches.decrementAndGet();
        }
        return 200;
    }

    private static int send(HttpExchange ex, int code, JsonNode body) throws IOException {
        byte[] b = ObjectStore.JSON.writeValueAsBytes(body);
        // Done = the response is ready to leave. Stamped after the write instead, the controller could
        // read the response and send its next request before this thread took the time (seen on a busy
        // two-core machine: a claim's status write "arriving" before its Sandbox create was done).
        ex.setAttribute(RESPONSE_READY, System.nanoTime());
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
        }
        return code;
    }

    static ObjectNode status(int code, String reason, String message) {
        ObjectNode s = ObjectStore.JSON.createObjectNode();
        s.put("apiVersion", "v1");
        s.put("kind", "Status");
        s.put("status", "Failure");
        s.put("message", message);
        s.put("reason", reason);
        s.put("code", code);
        return s;
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null) return out;
        for (String kv : raw.split("&")) {
            int eq = kv.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
            out.put(k, v);
        }
        return out;
    }

    /** The SandboxClaim named as controller anywhere in a request body (owner references, patch values). */
    public static String controllingClaim(JsonNode n) {
        if (n.isObject()) {
            if ("SandboxClaim".equals(n.path("kind").asString(null))
                    && n.path("controller").asBoolean(false)
                    && n.has("uid")) {
                return n.path("name").asString(null);
            }
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                String c = controllingClaim(e.getValue());
                if (c != null) return c;
            }
        } else if (n.isArray()) {
            for (JsonNode e : n) {
                String c = controllingClaim(e);
                if (c != null) return c;
            }
        }
        return null;
    }
}
