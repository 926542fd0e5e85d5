package io.sandboxd.router.authz;

import java.util.concurrent.CompletableFuture;

/**
 * Decides whether a caller may make an {@link AccessRequest}. Called after the route is parsed and
 * before resolution. Completes normally to allow, or exceptionally with {@link AuthzException}
 * (401/403); any other failure becomes a 500, so an authorizer that breaks never lets a request by.
 */
public interface Authorizer {
    CompletableFuture<Void> authorize(String authorizationHeader, AccessRequest request);

    /** Short name for logs and metrics. */
    String mode();
}
