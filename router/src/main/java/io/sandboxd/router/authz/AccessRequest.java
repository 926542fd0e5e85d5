package io.sandboxd.router.authz;

/**
 * What a request asks to reach.
 *
 * @param namespace the sandbox's namespace
 * @param sandboxId the sandbox's name
 * @param podIp whether the caller names the Pod IP itself (X-Sandbox-Pod-IP), which bypasses
 *     resolution and so needs a permission of its own
 */
public record AccessRequest(String namespace, String sandboxId, boolean podIp) {}
