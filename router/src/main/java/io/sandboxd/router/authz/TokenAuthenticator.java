package io.sandboxd.router.authz;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a bearer token with the Kubernetes TokenReview API. Verdicts (both ways) are cached in a
 * {@link TtlCache} keyed by the token's SHA-256, so the raw credential is never kept as a map key and
 * a burst of requests costs one API call. API failures are not cached.
 */
final class TokenAuthenticator {
    private static final Logger log = LoggerFactory.getLogger(TokenAuthenticator.class);

    /** An accepted token: its cache key (the SHA-256, never the token) and who it is. */
    record Authenticated(String tokenKey, Caller caller) {}

    private final KubernetesClient client;
    private final List<String> audiences;
    private final TtlCache<String, Optional<Caller>> verdicts;
    private final Executor blocking;

    TokenAuthenticator(
            KubernetesClient reviewClient,
            List<String> audiences,
            TtlCache<String, Optional<Caller>> verdicts,
            Executor blocking) {
        this.client = reviewClient;
        this.audiences = List.copyOf(audiences);
        this.verdicts = verdicts;
        this.blocking = blocking;
    }

    /** Completes with the caller, or fails with a 401 {@link AuthzException}; any other failure is the API's. */
    CompletableFuture<Authenticated> authenticate(String authorizationHeader) {
        String token = bearerToken(authorizationHeader);
        if (token == null) {
            return CompletableFuture.failedFuture(new AuthzException(401, "A bearer token is required."));
        }
        String key = sha256(token);
        Optional<Caller> cached = verdicts.get(key);
        if (cached != null) {
            return verdict(key, cached);
        }
        return CompletableFuture.supplyAsync(() -> review(token), blocking).thenCompose(caller -> {
            verdicts.put(key, caller);
            return verdict(key, caller);
        });
    }

    private Optional<Caller> review(String token) {
        TokenReview req = new TokenReviewBuilder()
                .withNewSpec()
                .withToken(token)
                .withAudiences(audiences.isEmpty() ? null : audiences)
                .endSpec()
                .build();
        TokenReview res;
        try {
            res = client.authentication().v1().tokenReviews().create(req);
        } catch (RuntimeException e) {
            // The message may quote the request; never log the token itself.
            log.warn("TokenReview call failed: {}", e.getClass().getSimpleName());
            throw e;
        }
        if (res == null
                || res.getStatus() == null
                || !Boolean.TRUE.equals(res.getStatus().getAuthenticated())) {
            return Optional.empty();
        }
        UserInfo u = res.getStatus().getUser();
        return Optional.of(
                u == null
                        ? new Caller(null, null, List.of(), Map.of())
                        : new Caller(
                                u.getUsername(),
                                u.getUid(),
                                u.getGroups() == null ? List.of() : List.copyOf(u.getGroups()),
                                u.getExtra() == null ? Map.of() : Map.copyOf(u.getExtra())));
    }

    private static CompletableFuture<Authenticated> verdict(String key, Optional<Caller> caller) {
        return caller.isPresent()
                ? CompletableFuture.completedFuture(new Authenticated(key, caller.get()))
                : CompletableFuture.failedFuture(new AuthzException(401, "The bearer token was not accepted."));
    }

    /** The token of {@code Authorization: Bearer <token>} (scheme case-insensitive), or null. */
    static String bearerToken(String header) {
        if (header == null) {
            return null;
        }
        String h = header.trim();
        if (h.length() <= 7 || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String t = h.substring(7).trim();
        return t.isEmpty() ? null : t;
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
