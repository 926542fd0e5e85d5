package io.sandboxd.router.resolve;

import io.sandboxd.router.routing.Route;
import io.sandboxd.router.vetting.IpLiteral;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Resolution order, first match wins: explicit Pod IP, informer cache (by UID, then by name), DNS
 * {@code <id>.<ns>.svc.<cluster-domain>} for a Service that belongs to a Sandbox. Only the DNS step
 * blocks, so only it leaves the caller's thread. Nothing here decides whether an address may be
 * dialled: every result goes through {@link io.sandboxd.router.vetting.DialPolicy}.
 */
public final class TargetResolver {
    private final PodCache cache;
    private final SandboxServices services;
    private final HostResolver dns;
    private final String clusterDomain;
    private final Executor blocking;

    public TargetResolver(
            PodCache cache, SandboxServices services, HostResolver dns, String clusterDomain, Executor blocking) {
        this.cache = cache;
        this.services = services;
        this.dns = dns;
        this.clusterDomain = clusterDomain;
        this.blocking = blocking;
    }

    /** Without a Service index (the router benchmark routes by Pod IP only): DNS reaches nothing. */
    public TargetResolver(PodCache cache, HostResolver dns, String clusterDomain, Executor blocking) {
        this(cache, SandboxServices.NONE, dns, clusterDomain, blocking);
    }

    public static String serviceName(Route r, String clusterDomain) {
        return r.sandboxId() + "." + r.namespace() + ".svc." + clusterDomain;
    }

    public CompletableFuture<ResolvedTarget> resolve(Route r) {
        if (r.podIp() != null) {
            return CompletableFuture.completedFuture(ofIp(r.podIp(), r.port(), ResolvedTarget.Source.POD_IP));
        }
        String ip = r.uid() != null ? cache.podIpByUid(r.namespace(), r.sandboxId(), r.uid()) : null;
        if (ip == null) {
            ip = cache.podIpByName(r.namespace(), r.sandboxId());
        }
        byte[] raw = ip == null ? null : IpLiteral.parse(ip);
        if (raw != null) {
            return CompletableFuture.completedFuture(ofIp(address(raw), r.port(), ResolvedTarget.Source.CACHE));
        }
        if (!services.isSandboxService(r.namespace(), r.sandboxId())) {
            return CompletableFuture.failedFuture(new NoSandboxServiceException(r.namespace(), r.sandboxId()));
        }
        String name = serviceName(r, clusterDomain);
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return new ResolvedTarget(
                                dns.resolve(name), r.port(), name + ":" + r.port(), ResolvedTarget.Source.DNS);
                    } catch (UnknownHostException e) {
                        throw new CompletionException(e);
                    }
                },
                blocking);
    }

    public void evict(Route r) {
        cache.evict(r.namespace(), r.sandboxId(), r.uid());
    }

    private static InetAddress address(byte[] raw) {
        try {
            return InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e); // unreachable: raw is 4 or 16 bytes
        }
    }

    private static ResolvedTarget ofIp(InetAddress a, int port, ResolvedTarget.Source source) {
        String host = IpLiteral.format(a.getAddress());
        String hostHeader = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        return new ResolvedTarget(List.of(a), port, hostHeader, source);
    }
}
