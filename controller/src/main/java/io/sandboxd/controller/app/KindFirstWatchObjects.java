package io.sandboxd.controller.app;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.internal.KubernetesDeserializer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.util.JsonParserSequence;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Reads the object of a watch event straight into its class in one pass, when its {@code
 * apiVersion} and {@code kind} come first, as an API server writes them (Go writes a built-in
 * kind's TypeMeta before its other fields, and a custom resource's keys sorted, so {@code
 * apiVersion}, {@code kind}, {@code metadata}, ...).
 *
 * <p>Why: fabric8 reads every watch event's object into a tree first, to find its kind, and then
 * converts the tree into the class: two passes over each event. In a JFR profile of a warm claim
 * burst ({@code sandboxd-bench controller}) the tree took 12.6% of the controller's CPU samples
 * and its conversion 10.7%, and each Sandbox event was then read three times (by the Sandbox, claim
 * and pool controllers; two informers since the claim and pool controllers share one).
 *
 * <p>Only the kinds in {@link #KINDS} take this path, each checked at start-up to be what its class
 * reads back as (its class's own {@code apiVersion} and {@code kind}). Any other object (a kind not
 * listed, a Status in an ERROR event, an object whose {@code kind} comes after other fields) goes
 * to fabric8's own deserializer unchanged, with the fields read so far replayed in front of the
 * rest.
 */
final class KindFirstWatchObjects extends ValueDeserializer<Object> {
    /**
     * Replaces the deserializer of {@link WatchEvent}'s {@code object} (a Jackson mix-in). On the
     * setter: a mix-in on the field does not win over the field's own annotation.
     */
    abstract static class WatchEventMixIn {
        @JsonDeserialize(using = KindFirstWatchObjects.class)
        abstract void setObject(Object object);
    }

    private record TypeKey(String apiVersion, String kind) {}

    private static final String API_VERSION = "apiVersion";
    private static final String KIND = "kind";

    /** The kinds the controller's informers watch. */
    static final List<Class<? extends HasMetadata>> KINDS = List.of(
            io.sandboxd.controller.model.Sandbox.class,
            io.sandboxd.controller.model.SandboxClaim.class,
            io.sandboxd.controller.model.SandboxTemplate.class,
            io.sandboxd.controller.model.SandboxWarmPool.class,
            io.fabric8.kubernetes.api.model.Pod.class,
            io.fabric8.kubernetes.api.model.Service.class,
            io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class);

    private static final Map<TypeKey, Class<?>> BY_TYPE = byType(KINDS);

    /**
     * Each class's deserializer, looked up once: {@code findRootValueDeserializer} contextualizes
     * the bean deserializer again on every call (a new property matcher each time), which was 13% of
     * the informer threads' samples. One instance of this class serves one mapper, so one config.
     */
    private final Map<Class<?>, ValueDeserializer<Object>> deserializers = new ConcurrentHashMap<>();

    static Map<TypeKey, Class<?>> byType(List<Class<? extends HasMetadata>> kinds) {
        Map<TypeKey, Class<?>> m = new HashMap<>();
        for (Class<? extends HasMetadata> c : kinds) {
            HasMetadata blank;
            try {
                blank = c.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot build a blank " + c.getName(), e);
            }
            m.put(new TypeKey(blank.getApiVersion(), blank.getKind()), c);
        }
        return Map.copyOf(m);
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
        if (!p.isExpectedStartObjectToken()) return fabric8(p, ctxt);
        String apiVersion = null;
        String kind = null;
        JsonToken t = p.nextToken();
        while (t == JsonToken.PROPERTY_NAME && (apiVersion == null || kind == null)) {
            String name = p.currentName();
            boolean isApiVersion = name.equals(API_VERSION) && apiVersion == null;
            if (!isApiVersion && !(name.equals(KIND) && kind == null)) break;
            if (p.nextToken() != JsonToken.VALUE_STRING) {
                return fabric8(replay(p, ctxt, apiVersion, kind, name), ctxt);
            }
            if (isApiVersion) apiVersion = p.getString();
            else kind = p.getString();
            t = p.nextToken();
        }
        Class<?> type = apiVersion == null || kind == null ? null : BY_TYPE.get(new TypeKey(apiVersion, kind));
        if (type == null) return fabric8(replay(p, ctxt, apiVersion, kind, null), ctxt);
        // The parser is on the next property (or the object's end): a bean deserializer reads on from
        // there, as it does after a type property in polymorphic reading.
        return deserializers
                .computeIfAbsent(type, c -> ctxt.findRootValueDeserializer(ctxt.constructType(c)))
                .deserialize(p, ctxt);
    }

    /**
     * A parser that yields the object from its start again: the properties already read (and the
     * name of one whose value is still to come, when {@code pendingName} is set), then the rest of
     * {@code p} from its current token.
     */
    private static JsonParser replay(
            JsonParser p, DeserializationContext ctxt, String apiVersion, String kind, String pendingName) {
        TokenBuffer tb = ctxt.bufferForInputBuffering(p);
        tb.writeStartObject();
        if (apiVersion != null) tb.writeName(API_VERSION).writeString(apiVersion);
        if (kind != null) tb.writeName(KIND).writeString(kind);
        if (pendingName != null) tb.writeName(pendingName);
        JsonParser seq = JsonParserSequence.createFlattened(true, tb.asParser(ctxt, p), p);
        seq.nextToken();
        return seq;
    }

    /** fabric8's own deserializer, with the kinds registered on the client's serialization. */
    private static Object fabric8(JsonParser p, DeserializationContext ctxt) throws JacksonException {
        ValueDeserializer<?> d = ctxt.getConfig()
                .getHandlerInstantiator()
                .deserializerInstance(ctxt.getConfig(), null, KubernetesDeserializer.class);
        return d.deserialize(p, ctxt);
    }
}
