package io.sandboxd.router.routing;

import java.net.InetAddress;

/**
 * Where a request should go, as parsed from headers or from the routing path prefix.
 *
 * @param namespace sandbox namespace (DNS-1123 label)
 * @param sandboxId sandbox name (DNS-1123 label)
 * @param port backend port, 1..65535
 * @param podIp explicit Pod IP from {@code X-Sandbox-Pod-IP} (a strict literal, vetted before dialling), or null
 * @param uid optional {@code X-Sandbox-UID} cache key, or null
 * @param forwardUri the origin-form request target to send to the backend, byte for byte
 * @param pathRouted whether the route came from the path prefix (no Pod-IP/UID form exists there)
 */
public record Route(
        String namespace,
        String sandboxId,
        int port,
        InetAddress podIp,
        String uid,
        String forwardUri,
        boolean pathRouted) {}
