package io.sandboxd.router.authz;

import java.util.concurrent.CompletableFuture;

/** Lets every caller reach every sandbox, X-Sandbox-Pod-IP included; the default, and logged as unsafe at start-up. */
public final class AllowAllAuthorizer implements Authorizer {
    private static final CompletableFuture<Void> ALLOWED = CompletableFuture.completedFuture(null);

    @Override
    public CompletableFuture<Void> authorize(String authorizationHeader, AccessRequest request) {
        return ALLOWED;
    }

    @Override
    public String mode() {
        return "allow-all";
    }
}
