package io.sandboxd.controller.standin;

import io.fabric8.zjsonpatch.JsonPatch;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The API server's storage semantics in memory: one resourceVersion sequence for all kinds (as
 * etcd gives), optimistic concurrency on updates, JSON and merge patches, status subresources,
 * generation bumps on spec changes, finalizers, and watches that replay from a resourceVersion
 * (410 Gone once it is compacted away) with selector-aware ADDED/MODIFIED/DELETED events.
 * Writes are serialised by one lock (like etcd's single revision counter); reads of single
 * objects take no lock.
 */
public final class ObjectStore {
    static final JsonMapper JSON = JsonMapper.builder().build();
    /** Events kept per kind for watches that resume from a resourceVersion. */
    static final int HISTORY = 50_000;

    public record Kind(
            String plural, String group, String version, String kind, boolean namespaced, boolean statusSubresource) {
        public String apiVersion() {
            return group.isEmpty() ? version : group + "/" + version;
        }
    }

    /**
     * A watch event: {@code previous} (null for a create) decides, for a watch with a selector,
     * whether the change entered, left or stayed in its selection.
     */
    public record Event(
            Kind kind,
            String type,
            String namespace,
            String name,
            long resourceVersion,
            JsonNode object,
            JsonNode previous,
            Line wire) {
        /** The line sent on the wire, built by the first watcher that sends it and shared by the others. */
        public byte[] line() {
            return wire.bytes(type, object);
        }
    }

    /**
     * An event's line, serialized outside the write lock: serializing under it made the lock a
     * bottleneck of its own (JFR of a warm burst at 300/s: 820 waits of 10-105 ms to enter it in
     * 3.3 s, the claim-creating thread among them, so claims arrived in bunches).
     */
    public static final class Line {
        private volatile byte[] bytes;

        byte[] bytes(String type, JsonNode o) {
            byte[] b = bytes;
            if (b == null) bytes = b = line(type, o); // a race only serializes twice
            return b;
        }
    }

    /** A write the API accepted, seen by in-process observers (the stand-in kubelet, the benchmark). */
    public interface WriteListener {
        void onWrite(Kind kind, JsonNode before, JsonNode after);
    }

    /** An API failure with the HTTP code and Status reason the real server answers with. */
    public static final class ApiException extends RuntimeException {
        public final int code;
        public final String reason;

        ApiException(int code, String reason, String message) {
            super(message);
            this.code = code;
            this.reason = reason;
        }
    }

    public record ListResult(List<JsonNode> items, long resourceVersion) {}

    private static final List<Kind> KNOWN = List.of(
            new Kind("pods", "", "v1", "Pod", true, true),
            new Kind("services", "", "v1", "Service", true, true),
            new Kind("persistentvolumeclaims", "", "v1", "PersistentVolumeClaim", true, true),
            new Kind("events", "", "v1", "Event", true, false),
            new Kind("networkpolicies", "networking.k8s.io", "v1", "NetworkPolicy", true, false),
            new Kind("leases", "coordination.k8s.io", "v1", "Lease", true, false),
            new Kind("sandboxes", "agents.x-k8s.io", "v1beta1", "Sandbox", true, true),
            new Kind("sandboxtemplates", "extensions.agents.x-k8s.io", "v1beta1", "SandboxTemplate", true, false),
            new Kind("sandboxwarmpools", "extensions.agents.x-k8s.io", "v1beta1", "SandboxWarmPool", true, true),
            new Kind("sandboxclaims", "extensions.agents.x-k8s.io", "v1beta1", "SandboxClaim", true, true));

    private final class Table {
        final Kind kind;
        final ConcurrentHashMap<String, JsonNode> objects = new ConcurrentHashMap<>();
        final ArrayDeque<Event> history = new ArrayDeque<>();
        long compactedThrough;
        final CopyOnWriteArrayList<Watch> watches = new CopyOnWriteArrayList<>();

        Table(Kind kind) {
            this.kind = kind;
        }
    }

    private final Map<String, Table> tables = new LinkedHashMap<>();
    private final Object writeLock = new Object();
    private final List<WriteListener> listeners = new CopyOnWriteArrayList<>();
    private long resourceVersion;
    private volatile boolean managedFields;
    private volatile boolean podDefaults;

    private static final io.fabric8.kubernetes.client.utils.KubernetesSerialization MODEL =
            new io.fabric8.kubernetes.client.utils.KubernetesSerialization();

    /** A fabric8 model object (e.g. a SandboxClaim built by a test) as the JSON a client would send. */
    public static ObjectNode fromModel(Object model) {
        return (ObjectNode) JSON.readTree(MODEL.asJson(model));
    }

    public ObjectStore() {
        for (Kind k : KNOWN) tables.put(k.group() + "/" + k.plural(), new Table(k));
    }

    /** From now on every write stores {@code metadata.managedFields} as an API server does ({@link ManagedFields}). */
    public ObjectStore recordManagedFields() {
        managedFields = true;
        return this;
    }

    /** From now on new Pods get an API server's defaults, and started ones a kubelet's full status ({@link PodDefaults}). */
    public ObjectStore applyPodDefaults() {
        podDefaults = true;
        return this;
    }

    boolean podDefaults() {
        return podDefaults;
    }

    public void addListener(WriteListener l) {
        listeners.add(l);
    }

    /** The kind served at {@code group/plural}, or null (the server answers 404). */
    public Kind kind(String group, String plural) {
        Table t = tables.get(group + "/" + plural);
        return t == null ? null : t.kind;
    }

    public Kind kindOf(String plural) {
        for (Table t : tables.values()) if (t.kind.plural().equals(plural)) return t.kind;
        throw new IllegalArgumentException("unknown resource " + plural);
    }

    private Table table(Kind k) {
        return tables.get(k.group() + "/" + k.plural());
    }

    private static String key(String ns, String name) {
        return ns + "/" + name;
    }

    // ---- reads -------------------------------------------------------------------------------

    public JsonNode get(Kind k, String ns, String name) {
        JsonNode o = table(k).objects.get(key(ns, name));
        if (o == null) throw notFound(k, name);
        return o;
    }

    /** Every object of the kind in the namespace (null: all namespaces) that the selectors match. */
    public ListResult list(Kind k, String ns, LabelSelector labels, String fieldName) {
        synchronized (writeLock) {
            List<JsonNode> items = new ArrayList<>();
            for (JsonNode o : table(k).objects.values()) {
                if (matches(o, ns, labels, fieldName)) items.add(o);
            }
            items.sort((a, b) -> Long.compare(rv(a), rv(b)));
            return new ListResult(items, resourceVersion);
        }
    }

    public long resourceVersion() {
        synchronized (writeLock) {
            return resourceVersion;
        }
    }

    static boolean matches(JsonNode o, String ns, LabelSelector labels, String fieldName) {
        JsonNode md = o.path("metadata");
        if (ns != null && !ns.equals(md.path("namespace").asString(""))) return false;
        if (fieldName != null && !fieldName.equals(md.path("name").asString(""))) return false;
        return labels.matches(labelsOf(o));
    }

    static Map<String, String> labelsOf(JsonNode o) {
        JsonNode l = o.path("metadata").path("labels");
        if (!l.isObject()) return Map.of();
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : l.properties())
            out.put(e.getKey(), e.getValue().asString(""));
        return out;
    }

    static long rv(JsonNode o) {
        return Long.parseLong(o.path("metadata").path("resourceVersion").asString("0"));
    }

    // ---- watches -----------------------------------------------------------------------------

    /** A registered watch; {@link ApiStandIn} drains it onto the HTTP response. */
    public final class Watch implements AutoCloseable {
        final Kind kind;
        final String namespace;
        final LabelSelector labels;
        final String fieldName;
        final java.util.concurrent.LinkedBlockingQueue<Event> queue = new java.util.concurrent.LinkedBlockingQueue<>();

        Watch(Kind kind, String namespace, LabelSelector labels, String fieldName) {
            this.kind = kind;
            this.namespace = namespace;
            this.labels = labels;
            this.fieldName = fieldName;
        }

        /** Queues what this watcher should see of the change. */
        void offer(Event e) {
            JsonNode before = e.previous();
            boolean now = e.object() != null
                    && !"DELETED".equals(e.type())
                    && matches(e.object(), namespace, labels, fieldName);
            boolean was = before != null && matches(before, namespace, labels, fieldName);
            if ("DELETED".equals(e.type())) {
                if (was) queue.add(e);
            } else if (now && was) {
                queue.add(e);
            } else if (now) {
                queue.add(retyped(e, "ADDED"));
            } else if (was) {
                queue.add(retyped(e, "DELETED"));
            }
        }

        @Override
        public void close() {
            table(kind).watches.remove(this);
        }
    }

    /**
     * Registers a watch that first replays every change after {@code fromRv}; 0 means "now", with
     * a synthetic ADDED for each existing object, as the API server does for an unset version.
     */
    public Watch watch(Kind k, String ns, LabelSelector labels, String fieldName, long fromRv) {
        synchronized (writeLock) {
            Table t = table(k);
            Watch w = new Watch(k, ns, labels, fieldName);
            if (fromRv <= 0) {
                for (JsonNode o : t.objects.values()) {
                    if (matches(o, ns, labels, fieldName)) w.queue.add(event(k, "ADDED", o, null));
                }
            } else {
                if (fromRv < t.compactedThrough) {
                    throw new ApiException(
                            410, "Expired", "too old resource version: " + fromRv + " (" + t.compactedThrough + ")");
                }
                for (Event e : t.history) {
                    if (e.resourceVersion() > fromRv) w.offer(e);
                }
            }
            t.watches.add(w);
            return w;
        }
    }

    private static Event retyped(Event e, String type) {
        return new Event(
                e.kind(), type, e.namespace(), e.name(), e.resourceVersion(), e.object(), e.previous(), new Line());
    }

    private static Event event(Kind k, String type, JsonNode o, JsonNode previous) {
        JsonNode md = o.path("metadata");
        return new Event(
                k,
                type,
                md.path("namespace").asString(""),
                md.path("name").asString(""),
                rv(o),
                o,
                previous,
                new Line());
    }

    static byte[] line(String type, JsonNode o) {
        ObjectNode ev = JSON.createObjectNode();
        ev.put("type", type);
        ev.set("object", o);
        byte[] b = JSON.writeValueAsBytes(ev);
        byte[] out = java.util.Arrays.copyOf(b, b.length + 1);
        out[b.length] = '\n';
        return out;
    }

    // ---- writes ------------------------------------------------------------------------------

    public JsonNode create(Kind k, String ns, ObjectNode body) {
        ObjectNode o = body.deepCopy();
        synchronized (writeLock) {
            Table t = table(k);
            ObjectNode md = o.withObjectProperty("metadata");
            String name = md.path("name").asString("");
            if (name.isEmpty()) {
                String gen = md.path("generateName").asString("");
                if (gen.isEmpty()) throw new ApiException(422, "Invalid", "metadata.name or generateName is required");
                do {
                    name = gen + randomSuffix();
                } while (t.objects.containsKey(key(ns, name)));
                md.put("name", name);
            }
            if (t.objects.containsKey(key(ns, name))) {
                throw new ApiException(409, "AlreadyExists", k.plural() + " \"" + name + "\" already exists");
            }
            if (k.namespaced()) md.put("namespace", ns);
            md.put("uid", UUID.randomUUID().toString());
            md.put(
                    "creationTimestamp",
                    Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
            md.put("generation", 1);
            md.remove("deletionTimestamp");
            md.remove("resourceVersion");
            o.put("apiVersion", k.apiVersion());
            o.put("kind", k.kind());
            if (k.statusSubresource()) o.remove("status");
            if (k.kind().equals("Pod")) {
                o.withObjectProperty("status").put("phase", "Pending");
                if (podDefaults) PodDefaults.onCreate(o, randomSuffix());
            }
            return commit(t, null, o);
        }
    }

    /** PUT: the body replaces the object; a resourceVersion in it must be the current one. */
    public JsonNode replace(Kind k, String ns, String name, ObjectNode body, boolean status) {
        synchronized (writeLock) {
            JsonNode old = get(k, ns, name);
            String want = body.path("metadata").path("resourceVersion").asString("");
            if (!want.isEmpty()
                    && !want.equals(old.path("metadata").path("resourceVersion").asString(""))) {
                throw conflict(k, name);
            }
            return commit(table(k), old, merged(k, old, body, status));
        }
    }

    /** PATCH with {@code application/json-patch+json} or {@code application/merge-patch+json}. */
    public JsonNode patch(Kind k, String ns, String name, String contentType, JsonNode patch, boolean status) {
        return writeFrom(k, ns, name, old -> {
            JsonNode patched;
            String ct = contentType == null ? "" : contentType;
            if (ct.startsWith("application/json-patch+json")) {
                try {
                    patched = JsonPatch.apply(patch, old);
                } catch (RuntimeException e) {
                    // A failed "test" op (the optimistic lock of our adoption patch) lands here, as on a real server.
                    throw new ApiException(
                            422,
                            "Invalid",
                            "the server rejected our request due to an error in our request: " + e.getMessage());
                }
            } else if (ct.startsWith("application/merge-patch+json")
                    || ct.startsWith("application/strategic-merge-patch+json")) {
                String want = patch.path("metadata").path("resourceVersion").asString("");
                if (!want.isEmpty()
                        && !want.equals(
                                old.path("metadata").path("resourceVersion").asString(""))) throw conflict(k, name);
                patched = MergePatch.apply(old, patch);
            } else {
                throw new ApiException(
                        415, "UnsupportedMediaType", "the body of the request was in an unknown format: " + ct);
            }
            if (!patched.isObject()) throw new ApiException(422, "Invalid", "patch did not produce an object");
            return merged(k, old, (ObjectNode) patched, status);
        });
    }

    /** In-process update (the stand-in kubelet, the benchmark driver): same semantics as a PUT. */
    public JsonNode update(Kind k, String ns, String name, UnaryOperator<ObjectNode> change, boolean status) {
        return writeFrom(k, ns, name, old -> merged(k, old, change.apply((ObjectNode) old.deepCopy()), status));
    }

    /**
     * A write worked out from the version read, without the lock (patching, merging and copying a
     * tree are most of a write's time), and committed under it only if that version is still the
     * stored one; otherwise it is worked out again from the newer one, so a resourceVersion
     * precondition or a JSON patch "test" is checked against what it is committed over, as on
     * the API server.
     */
    private JsonNode writeFrom(Kind k, String ns, String name, Function<JsonNode, ObjectNode> next) {
        Table t = table(k);
        while (true) {
            JsonNode old = get(k, ns, name);
            ObjectNode o = next.apply(old);
            synchronized (writeLock) {
                if (t.objects.get(key(ns, name)) == old) return commit(t, old, o);
            }
        }
    }

    /** DELETE: with finalizers the object only gets a deletionTimestamp. */
    public JsonNode delete(Kind k, String ns, String name) {
        return delete(k, ns, name, null);
    }

    /**
     * DELETE with DeleteOptions: {@code preconditions.resourceVersion} and {@code .uid} must match
     * the stored object, else 409 Conflict and nothing changes, as on the API server.
     */
    public JsonNode delete(Kind k, String ns, String name, JsonNode options) {
        synchronized (writeLock) {
            JsonNode old = get(k, ns, name);
            JsonNode pre = options == null ? null : options.path("preconditions");
            if (pre != null && pre.isObject()) {
                for (String f : List.of("resourceVersion", "uid")) {
                    String want = pre.path(f).asString(null);
                    String have = old.path("metadata").path(f).asString(null);
                    if (want != null && !want.equals(have)) {
                        String field = f.equals("uid") ? "UID" : "ResourceVersion";
                        throw new ApiException(
                                409,
                                "Conflict",
                                "Operation cannot be fulfilled on " + k.plural() + " \"" + name
                                        + "\": Precondition failed: "
                                        + field + " in precondition: " + want + ", " + field + " in object meta: "
                                        + have);
                    }
                }
            }
            if (old.path("metadata").path("finalizers").size() > 0) {
                ObjectNode o = (ObjectNode) old.deepCopy();
                if (!o.path("metadata").has("deletionTimestamp")) {
                    o.withObjectProperty("metadata")
                            .put(
                                    "deletionTimestamp",
                                    Instant.now()
                                            .truncatedTo(ChronoUnit.SECONDS)
                                            .toString());
                }
                return commit(table(k), old, o);
            }
            return remove(table(k), old);
        }
    }

    /** The new object from a write's result: what the API server keeps from the old one, and why. */
    private static ObjectNode merged(Kind k, JsonNode old, ObjectNode requested, boolean status) {
        ObjectNode o;
        if (status) {
            // The status subresource takes only the status stanza.
            o = (ObjectNode) old.deepCopy();
            if (requested.has("status")) o.set("status", requested.get("status"));
            else o.remove("status");
        } else {
            o = requested;
            if (k.statusSubresource()) {
                if (old.has("status")) o.set("status", old.get("status"));
                else o.remove("status");
            }
        }
        ObjectNode md = o.withObjectProperty("metadata");
        JsonNode omd = old.path("metadata");
        for (String f : List.of("name", "namespace", "uid", "creationTimestamp", "generation")) {
            if (omd.has(f)) md.set(f, omd.get(f));
        }
        if (omd.has("deletionTimestamp")) md.set("deletionTimestamp", omd.get("deletionTimestamp"));
        else md.remove("deletionTimestamp");
        o.put("apiVersion", k.apiVersion());
        o.put("kind", k.kind());
        if (!specOf(old).equals(specOf(o)))
            md.put("generation", omd.path("generation").asLong(0) + 1);
        return o;
    }

    /** Everything but metadata and status: what generation counts changes of. */
    private static ObjectNode specOf(JsonNode o) {
        ObjectNode c = JSON.createObjectNode();
        for (Map.Entry<String, JsonNode> e : o.properties()) {
            if (!e.getKey().equals("metadata") && !e.getKey().equals("status")) c.set(e.getKey(), e.getValue());
        }
        return c;
    }

    private JsonNode commit(Table t, JsonNode old, ObjectNode o) {
        JsonNode md = o.path("metadata");
        if (old != null && md.has("deletionTimestamp") && md.path("finalizers").isEmpty()) return remove(t, old);
        if (managedFields) {
            // A write that leaves managedFields out keeps them, as on an API server; they are
            // recomputed below, so the no-op check compares everything else.
            JsonNode had = old == null ? null : old.path("metadata").get("managedFields");
            if (had == null) o.withObjectProperty("metadata").remove("managedFields");
            else o.withObjectProperty("metadata").set("managedFields", had);
        }
        // Stored objects carry their resourceVersion as setRv wrote it, so equal means unchanged.
        if (old != null && o.equals(old)) return old; // a no-op write keeps its version, as etcd does
        if (managedFields) {
            o.withObjectProperty("metadata")
                    .set(
                            "managedFields",
                            ManagedFields.of(
                                    o,
                                    Instant.now()
                                            .truncatedTo(ChronoUnit.SECONDS)
                                            .toString()));
        }
        resourceVersion++;
        // o is this write's own tree (a copy, a patch's result or a parsed body): it becomes the
        // stored object without another copy. Copying it here and for the no-op check above was
        // a fifth of the stand-in's CPU samples in a warm burst (JFR, issue 23).
        ObjectNode stored = setRv(o, resourceVersion);
        String k = key(md.path("namespace").asString(""), md.path("name").asString(""));
        t.objects.put(k, stored);
        publish(t, event(t.kind, old == null ? "ADDED" : "MODIFIED", stored, old));
        for (WriteListener l : listeners) l.onWrite(t.kind, old, stored);
        return stored;
    }

    private JsonNode remove(Table t, JsonNode old) {
        resourceVersion++;
        JsonNode md = old.path("metadata");
        t.objects.remove(key(md.path("namespace").asString(""), md.path("name").asString("")));
        ObjectNode gone = setRv((ObjectNode) old.deepCopy(), resourceVersion);
        publish(t, event(t.kind, "DELETED", gone, old));
        for (WriteListener l : listeners) l.onWrite(t.kind, old, null);
        return gone;
    }

    private static ObjectNode setRv(ObjectNode o, long rv) {
        o.withObjectProperty("metadata").put("resourceVersion", Long.toString(rv));
        return o;
    }

    private void publish(Table t, Event e) {
        t.history.addLast(e);
        while (t.history.size() > HISTORY)
            t.compactedThrough = t.history.removeFirst().resourceVersion();
        for (Watch w : t.watches) w.offer(e);
    }

    /** Objects of a kind right now (no copy: stored objects are never mutated). */
    public Collection<JsonNode> snapshot(Kind k) {
        return table(k).objects.values();
    }

    private static String randomSuffix() {
        String alphabet = "bcdfghjklmnpqrstvwxz2456789";
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 5; i++)
            b.append(alphabet.charAt(ThreadLocalRandom.current().nextInt(alphabet.length())));
        return b.toString();
    }

    static ApiException notFound(Kind k, String name) {
        return new ApiException(404, "NotFound", k.plural() + " \"" + name + "\" not found");
    }

    static ApiException conflict(Kind k, String name) {
        return new ApiException(
                409,
                "Conflict",
                "Operation cannot be fulfilled on " + k.plural() + " \"" + name
                        + "\": the object has been modified; please apply your changes to the latest version and try again");
    }
}
