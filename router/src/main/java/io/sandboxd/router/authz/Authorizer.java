package io.sandboxd.router.authz;

import java.util.concurrent.CompletableFuture;

/**
 * Decides whether a caller may reach sandbox {@code namespace/id}. Called after the route is parsed
 * and before resolution. Completes normally to allow, or exceptionally with {@link AuthzException}
 * (401/403); any other failure becomes a 500.
 */
public interface Authorizer {
  CompletableFuture<Void> authorize(String authorizationHeader, String namespace, String sandboxId);

  /** Short name for logs and metrics. */
  String mode();
}
