package io.sandboxd.router.authz;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Authentication only: any token TokenReview accepts reaches every sandbox. X-Sandbox-Pod-IP is
 * refused here: this mode has no way to grant it, and it would open every Pod address to every
 * cluster identity. {@link ScopedAuthorizer} is the mode that scopes callers to sandboxes.
 */
public final class TokenReviewAuthorizer implements Authorizer, AutoCloseable {
    private final KubernetesClient client;
    private final TokenAuthenticator authenticator;
    private final TtlCache<String, Optional<Caller>> verdicts;

    /** @param reviewTimeout bound on one TokenReview call (connect + response); no retries */
    public TokenReviewAuthorizer(
            KubernetesClient client,
            List<String> audiences,
            Duration ttl,
            int maxEntries,
            Duration reviewTimeout,
            Executor blocking) {
        this(client, audiences, ttl, maxEntries, reviewTimeout, blocking, System::nanoTime);
    }

    TokenReviewAuthorizer(
            KubernetesClient client,
            List<String> audiences,
            Duration ttl,
            int maxEntries,
            Duration reviewTimeout,
            Executor blocking,
            LongSupplier clock) {
        this.client = ReviewClient.of(client, reviewTimeout);
        this.verdicts = new TtlCache<>(ttl.toNanos(), maxEntries, clock);
        this.authenticator = new TokenAuthenticator(this.client, audiences, verdicts, blocking);
    }

    @Override
    public String mode() {
        return "tokenreview";
    }

    @Override
    public CompletableFuture<Void> authorize(String authorizationHeader, AccessRequest request) {
        return authenticator
                .authenticate(authorizationHeader)
                .thenCompose(who -> request.podIp()
                        ? CompletableFuture.failedFuture(new AuthzException(
                                403,
                                "Forbidden: X-Sandbox-Pod-IP needs --authz-mode=scoped and a ClusterRole granting "
                                        + Permission.NAME_POD_IP.describe(request.namespace(), request.sandboxId())
                                        + "."))
                        : CompletableFuture.completedFuture(null));
    }

    int cacheSize() {
        return verdicts.size();
    }

    @Override
    public void close() {
        client.close();
    }
}
