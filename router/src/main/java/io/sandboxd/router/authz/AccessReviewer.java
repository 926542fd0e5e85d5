package io.sandboxd.router.authz;

import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the SubjectAccessReview API whether an authenticated caller holds a {@link Permission} on a
 * sandbox. Verdicts (both ways) are cached in a {@link TtlCache} keyed by the token's SHA-256 and the
 * exact question; API failures are not cached and fail the request (500), never open it.
 */
final class AccessReviewer {
    private static final Logger log = LoggerFactory.getLogger(AccessReviewer.class);

    private final KubernetesClient client;
    private final TtlCache<String, Boolean> verdicts;
    private final Executor blocking;

    AccessReviewer(KubernetesClient reviewClient, TtlCache<String, Boolean> verdicts, Executor blocking) {
        this.client = reviewClient;
        this.verdicts = verdicts;
        this.blocking = blocking;
    }

    /** Completes when allowed; fails with a 403 {@link AuthzException} naming what was missing. */
    CompletableFuture<Void> require(TokenAuthenticator.Authenticated who, Permission p, String namespace, String name) {
        String key = who.tokenKey() + "|" + p + (p.namespaced ? "|" + namespace + "/" + name : "");
        Boolean cached = verdicts.get(key);
        if (cached != null) {
            return verdict(cached, who.caller(), p, namespace, name);
        }
        SubjectAccessReview question = question(who.caller(), p, namespace, name);
        return CompletableFuture.supplyAsync(() -> allowed(ask(question)), blocking)
                .thenCompose(ok -> {
                    verdicts.put(key, ok);
                    return verdict(ok, who.caller(), p, namespace, name);
                });
    }

    private SubjectAccessReview ask(SubjectAccessReview question) {
        try {
            return client.authorization().v1().subjectAccessReview().create(question);
        } catch (RuntimeException e) {
            log.warn("SubjectAccessReview call failed: {}", e.getClass().getSimpleName());
            throw e;
        }
    }

    /** The review asking whether {@code c} may do {@code p} on sandbox {@code namespace/name}. */
    static SubjectAccessReview question(Caller c, Permission p, String namespace, String name) {
        Map<String, List<String>> extra = new LinkedHashMap<>();
        c.extra().forEach((k, v) -> extra.put(k, new ArrayList<>(v)));
        return new SubjectAccessReviewBuilder()
                .withNewSpec()
                .withUser(c.username())
                .withUid(c.uid())
                .withGroups(c.groups().isEmpty() ? null : new ArrayList<>(c.groups()))
                .withExtra(extra.isEmpty() ? null : extra)
                .withNewResourceAttributes()
                .withGroup(Permission.GROUP)
                .withResource(Permission.RESOURCE)
                .withSubresource(p.subresource)
                .withVerb(Permission.VERB)
                .withNamespace(p.namespaced ? namespace : null)
                .withName(p.namespaced ? name : null)
                .endResourceAttributes()
                .endSpec()
                .build();
    }

    /** Only an explicit {@code allowed: true} allows; no opinion, a denial or an evaluation error refuse. */
    static boolean allowed(SubjectAccessReview answer) {
        return answer != null
                && answer.getStatus() != null
                && Boolean.TRUE.equals(answer.getStatus().getAllowed())
                && !Boolean.TRUE.equals(answer.getStatus().getDenied());
    }

    private static CompletableFuture<Void> verdict(boolean ok, Caller c, Permission p, String namespace, String name) {
        return ok
                ? CompletableFuture.completedFuture(null)
                : CompletableFuture.failedFuture(new AuthzException(403, p.denial(c.username(), namespace, name)));
    }

    int cacheSize() {
        return verdicts.size();
    }
}
