package io.sandboxd.router.authz;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Production mode: TokenReview says who the caller is, then a SubjectAccessReview decides whether
 * they may reach this sandbox ({@code create sandboxes/proxy} in its namespace, name-scopable with
 * {@code resourceNames}); X-Sandbox-Pod-IP additionally needs {@code create sandboxes/pod-ip}
 * cluster-wide. Both verdict caches are bounded (TTL, entries).
 */
public final class ScopedAuthorizer implements Authorizer, AutoCloseable {
    private final KubernetesClient client;
    private final TokenAuthenticator authenticator;
    private final AccessReviewer reviewer;

    public ScopedAuthorizer(
            KubernetesClient client,
            List<String> audiences,
            Duration ttl,
            int maxEntries,
            Duration reviewTimeout,
            Executor blocking) {
        this(client, audiences, ttl, maxEntries, reviewTimeout, blocking, System::nanoTime);
    }

    ScopedAuthorizer(
            KubernetesClient client,
            List<String> audiences,
            Duration ttl,
            int maxEntries,
            Duration reviewTimeout,
            Executor blocking,
            LongSupplier clock) {
        this.client = ReviewClient.of(client, reviewTimeout);
        TtlCache<String, Optional<Caller>> tokens = new TtlCache<>(ttl.toNanos(), maxEntries, clock);
        this.authenticator = new TokenAuthenticator(this.client, audiences, tokens, blocking);
        this.reviewer = new AccessReviewer(this.client, new TtlCache<>(ttl.toNanos(), maxEntries, clock), blocking);
    }

    @Override
    public String mode() {
        return "scoped";
    }

    @Override
    public CompletableFuture<Void> authorize(String authorizationHeader, AccessRequest request) {
        return authenticator.authenticate(authorizationHeader).thenCompose(who -> {
            CompletableFuture<Void> reach =
                    reviewer.require(who, Permission.REACH_SANDBOX, request.namespace(), request.sandboxId());
            return request.podIp()
                    ? reach.thenCompose(v ->
                            reviewer.require(who, Permission.NAME_POD_IP, request.namespace(), request.sandboxId()))
                    : reach;
        });
    }

    int reviewCacheSize() {
        return reviewer.cacheSize();
    }

    @Override
    public void close() {
        client.close();
    }
}
