package io.sandboxd.controller.standin;

import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** RFC 7386 JSON merge patch: objects merge key by key, null deletes, anything else replaces. */
final class MergePatch {
    private MergePatch() {}

    static JsonNode apply(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) return patch.deepCopy();
        ObjectNode out = target != null && target.isObject()
                ? (ObjectNode) target.deepCopy()
                : ObjectStore.JSON.createObjectNode();
        for (Map.Entry<String, JsonNode> e : patch.properties()) {
            if (e.getValue().isNull()) out.remove(e.getKey());
            else out.set(e.getKey(), apply(out.get(e.getKey()), e.getValue()));
        }
        return out;
    }
}
