package io.sandboxd.controller.standin;

import io.sandboxd.controller.standin.ObjectStore.ApiException;
import io.sandboxd.controller.standin.ObjectStore.Event;
import io.sandboxd.controller.standin.ObjectStore.Kind;
import io.sandboxd.controller.standin.StandInTransport.Exchange;
import io.sandboxd.controller.standin.StandInTransport.WatchStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Kubernetes API stand-in that is not the bottleneck: the REST paths, verbs, status codes and
 * watch protocol (a WebSocket with one event per message, as fabric8 watches a real API server,
 * or HTTP streaming with one event per line) that fabric8 and JOSDK use, over {@link ObjectStore},
 * with one thread per request (no request waits for a worker; transport: {@link StandInTransport}). Every request is logged with its arrival and completion time, so the API's own
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
    private final StandInTransport server;
    private final ExecutorService executor;
    private final java.util.Queue<Request> log = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** When the latest request other than a watch was answered (System.nanoTime), 0 before any. */
    private final java.util.concurrent.atomic.AtomicLong lastAnswered = new java.util.concurrent.atomic.AtomicLong();

    private final List<EventSentListener> sentListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<RequestHook> hooks = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicInteger openWatches = new AtomicInteger();
    private final Map<String, AtomicInteger> openWatchesByPlural = new ConcurrentHashMap<>();
    private final AtomicInteger webSocketWatches = new AtomicInteger();
    private final AtomicInteger httpWatches = new AtomicInteger();
    private volatile boolean closed;

    public ApiStandIn(ObjectStore store) throws IOException {
        this.store = store;
        AtomicInteger n = new AtomicInteger();
        executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "api-standin-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server = new StandInTransport(executor, this::handle);
    }

    public ObjectStore store() {
        return store;
    }

    public String url() {
        return "http://127.0.0.1:" + server.port();
    }

    public void addEventSentListener(EventSentListener l) {
        sentListeners.add(l);
    }

    public void addRequestHook(RequestHook h) {
        hooks.add(h);
    }

    /**
     * When the latest request other than a watch was answered ({@link System#nanoTime}), 0 before
     * any: a poll for "the controller has gone quiet" that copies nothing (copying {@link
     * #requests()} every 20 ms was a fifth of the benchmark JVM's CPU samples while it waited).
     */
    public long lastAnsweredNanos() {
        return lastAnswered.get();
    }

    /** Every request so far, in completion order. */
    public List<Request> requests() {
        return new ArrayList<>(log);
    }

    public int openWatches() {
        return openWatches.get();
    }

    /** Watches open now on one kind, by its plural ("sandboxes"). */
    public int openWatches(String plural) {
        AtomicInteger n = openWatchesByPlural.get(plural);
        return n == null ? 0 : n.get();
    }

    /** Watches opened so far as a WebSocket / as a streamed HTTP response. */
    public int webSocketWatches() {
        return webSocketWatches.get();
    }

    public int httpWatches() {
        return httpWatches.get();
    }

    @Override
    public void close() {
        closed = true;
        server.close();
        executor.shutdownNow();
    }

    // ---- HTTP ----------------------------------------------------------------------------------

    private record Target(Kind kind, String namespace, String name, String subresource) {}

    private void handle(Exchange ex) {
        long arrived = System.nanoTime();
        long[] ready = {0}; // when the response was ready to leave
        Verb verb = Verb.OTHER;
        Target target = null;
        String claim = null;
        int code = 0;
        try {
            String path = ex.rawPath();
            Map<String, String> q = query(ex.rawQuery());
            if (path.equals("/version")) {
                code = send(
                        ex,
                        ready,
                        200,
                        ObjectStore.JSON.readTree(
                                "{\"major\":\"1\",\"minor\":\"33\",\"gitVersion\":\"v1.33.0-standin\"}"));
                return;
            }
            target = target(path);
            if (target == null) {
                code = send(
                        ex, ready, 404, status(404, "NotFound", "the server could not find the requested resource"));
                return;
            }
            String method = ex.method();
            verb = verb(method, target, q);
            if (target.kind().kind().equals("SandboxClaim")) claim = target.name();
            if (verb == Verb.WATCH) {
                code = watch(ex, target, q);
                return;
            }
            JsonNode body = null;
            byte[] raw = ex.body();
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
                        case PATCH -> store.patch(k, ns, target.name(), ex.header("Content-Type"), body, status);
                        case DELETE -> store.delete(k, ns, target.name(), body);
                        default -> throw new ApiException(405, "MethodNotAllowed", method + " is not supported");
                    };
            code = send(ex, ready, verb == Verb.CREATE ? 201 : 200, result);
        } catch (ApiException e) {
            code = send(ex, ready, e.code, status(e.code, e.reason, e.getMessage()));
        } catch (RuntimeException e) {
            code = send(ex, ready, 400, status(400, "BadRequest", String.valueOf(e.getMessage())));
        } catch (IOException e) {
            code = 499; // the client went away before the response left
        } finally {
            long done = ready[0] != 0 ? ready[0] : System.nanoTime();
            if (verb != Verb.WATCH) lastAnswered.accumulateAndGet(done, Math::max);
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

    private int watch(Exchange ex, Target t, Map<String, String> q) throws IOException {
        String rv = q.get("resourceVersion");
        long from = rv == null || rv.isEmpty() ? 0 : Long.parseLong(rv);
        long timeout = q.containsKey("timeoutSeconds") ? Long.parseLong(q.get("timeoutSeconds")) : 1800;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeout);
        ObjectStore.Watch w;
        try {
            w = store.watch(t.kind(), t.namespace(), LabelSelector.parse(q.get("labelSelector")), fieldName(q), from);
        } catch (ApiException e) {
            // As the API server does for an expired version: 200 and one ERROR event, then the end.
            try (WatchStream out = ex.openWatch()) {
                out.write(List.of(ObjectStore.line("ERROR", status(e.code, e.reason, e.getMessage()))));
            }
            return 200;
        }
        List<Event> batch = new ArrayList<>();
        List<byte[]> lines = new ArrayList<>();
        try (w;
                WatchStream out = ex.openWatch()) {
            (out.webSocket() ? webSocketWatches : httpWatches).incrementAndGet();
            openWatches.incrementAndGet();
            AtomicInteger ofKind = openWatchesByPlural.computeIfAbsent(t.kind().plural(), k -> new AtomicInteger());
            ofKind.incrementAndGet();
            try {
                // A client that went away ends its watch within one poll, not at its deadline.
                while (!closed && out.open() && System.nanoTime() < deadline) {
                    Event first = w.queue.poll(500, TimeUnit.MILLISECONDS);
                    if (first == null) continue;
                    batch.clear();
                    batch.add(first);
                    w.queue.drainTo(batch, 255);
                    lines.clear();
                    for (Event e : batch) lines.add(e.line());
                    // Stamped before the write: once the bytes are out the controller may act on them before
                    // this thread runs again, and a request it makes must never seem to precede the event.
                    long sent = System.nanoTime();
                    out.write(lines);
                    for (Event e : batch) for (EventSentListener l : sentListeners) l.onSent(e, sent);
                }
            } finally {
                openWatches.decrementAndGet();
                ofKind.decrementAndGet();
            }
        } catch (IOException | InterruptedException e) {
            // the client went away, or we are stopping
        }
        return 200;
    }

    /** Returns the code sent, or 499 when the client went away first. */
    private static int send(Exchange ex, long[] ready, int code, JsonNode body) {
        byte[] b = ObjectStore.JSON.writeValueAsBytes(body);
        // Done = the response is ready to leave. Stamped after the write instead, the controller could
        // read the response and send its next request before this thread took the time (seen on a busy
        // two-core machine: a claim's status write "arriving" before its Sandbox create was done).
        ready[0] = System.nanoTime();
        try {
            ex.respond(code, b);
            return code;
        } catch (IOException e) {
            return 499;
        }
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
