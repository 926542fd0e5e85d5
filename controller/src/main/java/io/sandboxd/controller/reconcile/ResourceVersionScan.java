package io.sandboxd.controller.reconcile;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.json.JsonFactory;

/**
 * The {@code metadata.resourceVersion} of one Kubernetes object's JSON, read by streaming past
 * everything else: no object is built, only the two names on the way are compared.
 */
final class ResourceVersionScan {
    private static final JsonFactory JSON = new JsonFactory();

    private ResourceVersionScan() {}

    /** The object's top-level {@code metadata.resourceVersion}; null when it has none. */
    static String of(byte[] json) {
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) return null;
            for (String name = p.nextName(); name != null; name = p.nextName()) {
                JsonToken value = p.nextToken();
                if (name.equals("metadata")) {
                    return value == JsonToken.START_OBJECT ? versionIn(p) : null;
                }
                p.skipChildren();
            }
            return null;
        }
    }

    private static String versionIn(JsonParser metadata) {
        for (String name = metadata.nextName(); name != null; name = metadata.nextName()) {
            if (name.equals("resourceVersion")) return metadata.nextStringValue();
            metadata.nextToken();
            metadata.skipChildren();
        }
        return null;
    }
}
