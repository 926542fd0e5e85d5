package io.sandboxd.router.resolve;

/**
 * Which Services the DNS fallback may reach: only those that belong to a Sandbox, so a route such
 * as {@code default/kubernetes} never reaches the API server's Service (or any other one).
 */
@FunctionalInterface
public interface SandboxServices {
    boolean isSandboxService(String namespace, String name);

    /** Without an informer nothing can be verified: the DNS fallback reaches nothing. */
    SandboxServices NONE = (namespace, name) -> false;
}
