package io.sandboxd.controller.standin;

import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code metadata.managedFields} an API server keeps on every object: one entry for the
 * object's own fields and one for the status subresource, each a FieldsV1 tree with a {@code f:}
 * key per field set and a {@code k:} key per list item that has a {@code name} or {@code type}.
 * The stand-in does not track managers, so one manager owns all of it; the size and shape, which
 * is what a client pays to read, are an API server's.
 */
final class ManagedFields {
    static final String MANAGER = "sandboxd-controller";

    private ManagedFields() {}

    static ArrayNode of(ObjectNode o, String time) {
        ArrayNode entries = ObjectStore.JSON.createArrayNode();
        ObjectNode main = ObjectStore.JSON.createObjectNode();
        for (Map.Entry<String, JsonNode> e : o.properties()) {
            switch (e.getKey()) {
                case "apiVersion", "kind", "status" -> {}
                case "metadata" -> {
                    ObjectNode md = ObjectStore.JSON.createObjectNode();
                    for (String f : new String[] {"labels", "annotations", "ownerReferences", "finalizers"}) {
                        if (e.getValue().has(f))
                            md.set("f:" + f, tree(e.getValue().get(f)));
                    }
                    if (!md.isEmpty()) main.set("f:metadata", md);
                }
                default -> main.set("f:" + e.getKey(), tree(e.getValue()));
            }
        }
        entries.add(entry(o, time, main, null));
        if (o.has("status")) {
            ObjectNode status = ObjectStore.JSON.createObjectNode();
            status.set("f:status", tree(o.get("status")));
            entries.add(entry(o, time, status, "status"));
        }
        return entries;
    }

    private static ObjectNode entry(ObjectNode o, String time, ObjectNode fields, String subresource) {
        ObjectNode e = ObjectStore.JSON.createObjectNode();
        e.put("manager", MANAGER);
        e.put("operation", "Update");
        e.put("apiVersion", o.path("apiVersion").asString(""));
        e.put("time", time);
        e.put("fieldsType", "FieldsV1");
        e.set("fieldsV1", fields);
        if (subresource != null) e.put("subresource", subresource);
        return e;
    }

    /** The FieldsV1 set of one value: its fields' keys, recursively; a leaf is {}. */
    static ObjectNode tree(JsonNode v) {
        ObjectNode t = ObjectStore.JSON.createObjectNode();
        if (v.isObject()) {
            for (Map.Entry<String, JsonNode> e : v.properties()) t.set("f:" + e.getKey(), tree(e.getValue()));
        } else if (v.isArray()) {
            for (JsonNode item : v) {
                String key = itemKey(item);
                if (key == null) continue;
                ObjectNode it = tree(item);
                it.set(".", ObjectStore.JSON.createObjectNode());
                t.set(key, it);
            }
        }
        return t;
    }

    private static String itemKey(JsonNode item) {
        for (String k : new String[] {"name", "type", "containerPort", "ip"}) {
            JsonNode v = item.path(k);
            if (!v.isMissingNode()) return "k:{\"" + k + "\":" + v + "}";
        }
        return item.isValueNode() ? "v:" + item : null;
    }
}
