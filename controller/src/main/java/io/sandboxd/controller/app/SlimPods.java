package io.sandboxd.controller.app;

import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * How the operator's client reads a Pod: its metadata whole, of its spec only {@code nodeName}, of
 * its status only {@code phase}, {@code conditions}, {@code podIP} and {@code podIPs}; the rest is
 * skipped, not bound. That is all the Sandbox controller reads of a Pod ({@code SandboxConditions},
 * the status it writes), and the Pod informer's cache keeps one for every Sandbox. A Pod from a
 * cluster also carries the API server's defaults, the service-account token volume and a status
 * per container. Pods the controller creates are written from their desired state, never from a
 * read one, so nothing skipped here is ever sent back.
 */
final class SlimPods {
    private SlimPods() {}

    /** A Jackson mix-in on {@code Pod}: on the setters, as a mix-in on a field loses to the field's own annotation. */
    abstract static class PodMixIn {
        @JsonDeserialize(using = NodeNameOnly.class)
        abstract void setSpec(PodSpec spec);

        @JsonDeserialize(using = StatusAsRead.class)
        abstract void setStatus(PodStatus status);
    }

    static final class NodeNameOnly extends ValueDeserializer<PodSpec> {
        @Override
        public PodSpec deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
            PodSpec spec = new PodSpec();
            for (String name = p.nextName(); name != null; name = p.nextName()) {
                JsonToken t = p.nextToken();
                if (name.equals("nodeName") && t == JsonToken.VALUE_STRING) spec.setNodeName(p.getString());
                else p.skipChildren();
            }
            return spec;
        }
    }

    static final class StatusAsRead extends ValueDeserializer<PodStatus> {
        /** Looked up once per mapper: a lookup per Pod builds a contextual deserializer each time. */
        private volatile ValueDeserializer<Object> conditions;

        private volatile ValueDeserializer<Object> podIPs;

        @Override
        @SuppressWarnings("unchecked")
        public PodStatus deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
            PodStatus status = new PodStatus();
            for (String name = p.nextName(); name != null; name = p.nextName()) {
                JsonToken t = p.nextToken();
                boolean isNull = t == JsonToken.VALUE_NULL;
                switch (name) {
                    case "phase" -> status.setPhase(isNull ? null : p.getString());
                    case "podIP" -> status.setPodIP(isNull ? null : p.getString());
                    case "conditions" -> {
                        if (conditions == null) conditions = listOf(ctxt, PodCondition.class);
                        status.setConditions(isNull ? null : (List<PodCondition>) conditions.deserialize(p, ctxt));
                    }
                    case "podIPs" -> {
                        if (podIPs == null) podIPs = listOf(ctxt, PodIP.class);
                        status.setPodIPs(isNull ? null : (List<PodIP>) podIPs.deserialize(p, ctxt));
                    }
                    default -> p.skipChildren();
                }
            }
            return status;
        }

        private static ValueDeserializer<Object> listOf(DeserializationContext ctxt, Class<?> element) {
            return ctxt.findRootValueDeserializer(ctxt.getTypeFactory().constructCollectionType(List.class, element));
        }
    }
}
