package io.sandboxd.controller.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * RFC 6902 JSON Patch bodies. The controllers use JSON Patch rather than merge patch because
 * its semantics are exact everywhere (fabric8's CRUD mock server appends arrays and keeps
 * null-valued keys on merge patches, which a real API server does not).
 */
public final class JsonPatch {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final List<Map<String, Object>> ops = new ArrayList<>();
    /** Whether an op writes a whole map that our copy had empty (see {@link #replacesAMap}). */
    private boolean replacesAMap;

    public static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    public JsonPatch add(String path, Object value) {
        Map<String, Object> op = new LinkedHashMap<>();
        op.put("op", "add");
        op.put("path", path);
        op.put("value", value);
        ops.add(op);
        return this;
    }

    public JsonPatch remove(String path) {
        Map<String, Object> op = new LinkedHashMap<>();
        op.put("op", "remove");
        op.put("path", path);
        ops.add(op);
        return this;
    }

    /** Fails the whole patch unless the value at path equals value (an optimistic lock). */
    public JsonPatch test(String path, Object value) {
        Map<String, Object> op = new LinkedHashMap<>();
        op.put("op", "test");
        op.put("path", path);
        op.put("value", value);
        ops.add(op);
        return this;
    }

    /**
     * Ops that turn the string map at {@code path} from {@code current} into {@code desired}. An
     * empty {@code current} is treated as absent: fabric8 reads a missing map as an empty one, and
     * a per-key "add" into a map the object does not have is refused by a real API server (422).
     */
    public JsonPatch map(String path, Map<String, String> current, Map<String, String> desired) {
        Map<String, String> want = desired == null ? Map.of() : desired;
        if (current == null || current.isEmpty()) {
            if (!want.isEmpty()) {
                add(path, new LinkedHashMap<>(want));
                replacesAMap = true;
            }
            return this;
        }
        for (String k : current.keySet()) if (!want.containsKey(k)) remove(path + "/" + escape(k));
        want.forEach((k, v) -> {
            if (!Objects.equals(v, current.get(k))) add(path + "/" + escape(k), v);
        });
        return this;
    }

    /** Sets (or with null removes) one key of the string map at {@code path}; empty = absent, as in {@link #map}. */
    public JsonPatch mapEntry(String path, Map<String, String> current, String key, String value) {
        if (value == null) {
            if (current != null && current.containsKey(key)) remove(path + "/" + escape(key));
        } else if (current == null || current.isEmpty()) {
            Map<String, String> m = new LinkedHashMap<>();
            m.put(key, value);
            add(path, m);
            replacesAMap = true;
        } else if (!value.equals(current.get(key))) {
            add(path + "/" + escape(key), value);
        }
        return this;
    }

    /**
     * True when {@link #map} or {@link #mapEntry} wrote a whole map because our copy had none.
     * Such an op replaces whatever the server holds there, so a label another writer added after
     * our copy was read would be lost; {@link #guardedBy} makes the server refuse it instead.
     */
    public boolean replacesAMap() {
        return replacesAMap;
    }

    /** These ops after a test of the object's resourceVersion: the server refuses them (422) if it moved. */
    public JsonPatch guardedBy(String resourceVersion) {
        JsonPatch guarded = new JsonPatch().test("/metadata/resourceVersion", resourceVersion);
        guarded.ops.addAll(ops);
        guarded.replacesAMap = replacesAMap;
        return guarded;
    }

    public boolean isEmpty() {
        return ops.isEmpty();
    }

    public List<Map<String, Object>> ops() {
        return ops;
    }

    public String json() {
        return JSON.writeValueAsString(ops);
    }
}
