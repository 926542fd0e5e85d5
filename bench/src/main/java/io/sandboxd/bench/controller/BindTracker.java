package io.sandboxd.bench.controller;

import io.sandboxd.controller.standin.ApiStandIn;
import io.sandboxd.controller.standin.ObjectStore;
import io.sandboxd.controller.standin.ObjectStore.Kind;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;

/**
 * Watches the stand-in from the inside: when each claim's ADDED event reached the controller,
 * when its status first named a Sandbox (and every Sandbox it ever named), and every claim that
 * ever controlled each Sandbox. Keys are "namespace/name".
 */
final class BindTracker {
    final Map<String, Long> claimEventSent = new ConcurrentHashMap<>();
    final Map<String, Long> boundAt = new ConcurrentHashMap<>();
    final Map<String, Set<String>> boundNames = new ConcurrentHashMap<>();
    final Map<String, Set<String>> controllingClaims = new ConcurrentHashMap<>();

    BindTracker(ApiStandIn api) {
        ObjectStore store = api.store();
        Kind claims = store.kindOf("sandboxclaims");
        Kind sandboxes = store.kindOf("sandboxes");
        api.addEventSentListener((e, nanos) -> {
            if (e.kind() == claims && e.type().equals("ADDED")) {
                claimEventSent.putIfAbsent(e.namespace() + "/" + e.name(), nanos);
            }
        });
        store.addListener((kind, before, after) -> {
            if (after == null) {
                return;
            }
            String key = after.path("metadata").path("namespace").asString() + "/"
                    + after.path("metadata").path("name").asString();
            if (kind == claims) {
                String bound = after.path("status").path("sandbox").path("name").asString("");
                if (!bound.isEmpty()) {
                    boundAt.putIfAbsent(key, System.nanoTime());
                    boundNames
                            .computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet())
                            .add(bound);
                }
            } else if (kind == sandboxes) {
                for (JsonNode r : after.path("metadata").path("ownerReferences")) {
                    if (r.path("controller").asBoolean()
                            && "SandboxClaim".equals(r.path("kind").asString())) {
                        controllingClaims
                                .computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet())
                                .add(r.path("uid").asString());
                    }
                }
            }
        });
    }

    /** Sandboxes that more than one claim has controlled: adopted twice. */
    long doubleAdoptions() {
        return controllingClaims.values().stream().filter(s -> s.size() > 1).count();
    }
}
