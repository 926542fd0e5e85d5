package io.sandboxd.router.authz;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bearer-token mode: the token must be accepted by the Kubernetes TokenReview API. Verdicts (both
 * ways) are cached for a short TTL in a bounded LRU keyed by the token's SHA-256, so the raw
 * credential is never kept as a map key and a burst of requests costs one API call. API failures
 * are not cached.
 */
public final class TokenReviewAuthorizer implements Authorizer, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TokenReviewAuthorizer.class);

  private record Verdict(boolean authenticated, long expiresAtNanos) {}

  private final KubernetesClient client;
  private final List<String> audiences;
  private final Executor blocking;
  private final long ttlNanos;
  private final LongSupplier clock;
  private final Map<String, Verdict> cache;

  /** @param reviewTimeout bound on one TokenReview call (connect + response); no retries */
  public TokenReviewAuthorizer(
      KubernetesClient client, List<String> audiences, Duration ttl, int maxEntries,
      Duration reviewTimeout, Executor blocking) {
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
    // Own client with no retries and a short timeout: a request waiting on a slow or failing API
    // server must fail fast with a 500, not sit through the default exponential retries.
    this.client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .withRequestTimeout((int) reviewTimeout.toMillis())
                    .withConnectionTimeout((int) reviewTimeout.toMillis())
                    .build())
            .build();
    this.audiences = List.copyOf(audiences);
    this.blocking = blocking;
    this.ttlNanos = ttl.toNanos();
    this.clock = clock;
    this.cache =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Verdict> eldest) {
            return size() > maxEntries;
          }
        };
  }

  @Override
  public String mode() {
    return "tokenreview";
  }

  @Override
  public CompletableFuture<Void> authorize(String authorizationHeader, String namespace, String sandboxId) {
    String token = bearerToken(authorizationHeader);
    if (token == null) {
      return CompletableFuture.failedFuture(new AuthzException(401, "A bearer token is required."));
    }
    String key = sha256(token);
    long now = clock.getAsLong();
    Verdict cached;
    synchronized (cache) {
      cached = cache.get(key);
    }
    if (cached != null && cached.expiresAtNanos() - now > 0) {
      return verdict(cached.authenticated());
    }
    return CompletableFuture.supplyAsync(() -> review(token), blocking)
        .thenCompose(
            ok -> {
              synchronized (cache) {
                cache.put(key, new Verdict(ok, clock.getAsLong() + ttlNanos));
              }
              return verdict(ok);
            });
  }

  private boolean review(String token) {
    TokenReview req =
        new TokenReviewBuilder()
            .withNewSpec()
            .withToken(token)
            .withAudiences(audiences.isEmpty() ? null : audiences)
            .endSpec()
            .build();
    try {
      TokenReview res = client.authentication().v1().tokenReviews().create(req);
      return res != null
          && res.getStatus() != null
          && Boolean.TRUE.equals(res.getStatus().getAuthenticated());
    } catch (RuntimeException e) {
      // The message may quote the request; never log the token itself.
      log.warn("TokenReview call failed: {}", e.getClass().getSimpleName());
      throw e;
    }
  }

  private static CompletableFuture<Void> verdict(boolean authenticated) {
    return authenticated
        ? CompletableFuture.completedFuture(null)
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

  @Override
  public void close() {
    client.close();
  }

  int cacheSize() {
    synchronized (cache) {
      return cache.size();
    }
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
