package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.util.RawValue;

/**
 * The JSON body of a create whose spec was serialized before: the object's own apiVersion, kind
 * and metadata, and the spec's JSON as it is. Serializing a Pod's or a pool member's spec was most
 * of a create's Jackson time (JFR, warm burst, issue 23), and it is the same for every member of a
 * pool and for every Pod of such members.
 */
public final class CreateBody {
    private CreateBody() {}

    /** {@code specJson}: the JSON of the object's spec (e.g. {@link Copies#json} of it). */
    public static String of(HasMetadata item, String specJson) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("apiVersion", item.getApiVersion());
        body.put("kind", item.getKind());
        body.put("metadata", item.getMetadata());
        body.put("spec", new RawValue(specJson));
        return Copies.json(body);
    }
}
