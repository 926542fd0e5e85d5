package io.sandboxd.router.resolve;

import io.netty.util.NetUtil;
import io.sandboxd.router.routing.Route;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Resolution order, first match wins: explicit Pod IP, informer cache (by UID, then by name), DNS
 * {@code <id>.<ns>.svc.<cluster-domain>}. Only the DNS step blocks, so only it leaves the caller's
 * thread.
 */
public final class TargetResolver {
  private final PodCache cache;
  private final HostResolver dns;
  private final String clusterDomain;
  private final Executor blocking;

  public TargetResolver(PodCache cache, HostResolver dns, String clusterDomain, Executor blocking) {
    this.cache = cache;
    this.dns = dns;
    this.clusterDomain = clusterDomain;
    this.blocking = blocking;
  }

  public static String serviceName(Route r, String clusterDomain) {
    return r.sandboxId() + "." + r.namespace() + ".svc." + clusterDomain;
  }

  public CompletableFuture<ResolvedTarget> resolve(Route r) {
    if (r.podIp() != null) {
      return CompletableFuture.completedFuture(ofIp(r.podIp(), r.port(), ResolvedTarget.Source.POD_IP));
    }
    String ip = r.uid() != null ? cache.podIpByUid(r.uid()) : null;
    if (ip == null) {
      ip = cache.podIpByName(r.namespace(), r.sandboxId());
    }
    if (ip != null) {
      byte[] raw = NetUtil.createByteArrayFromIpAddressString(ip);
      if (raw != null) {
        try {
          return CompletableFuture.completedFuture(
              ofIp(InetAddress.getByAddress(raw), r.port(), ResolvedTarget.Source.CACHE));
        } catch (UnknownHostException ignored) {
          // unreachable: raw is a valid literal; fall through to DNS
        }
      }
    }
    String name = serviceName(r, clusterDomain);
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            InetAddress a = dns.resolve(name);
            return new ResolvedTarget(
                new InetSocketAddress(a, r.port()), name + ":" + r.port(), ResolvedTarget.Source.DNS);
          } catch (UnknownHostException e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        },
        blocking);
  }

  public void evict(Route r) {
    cache.evict(r.namespace(), r.sandboxId(), r.uid());
  }

  private static ResolvedTarget ofIp(InetAddress a, int port, ResolvedTarget.Source source) {
    String host = NetUtil.toAddressString(a);
    String hostHeader = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    return new ResolvedTarget(new InetSocketAddress(a, port), hostHeader, source);
  }
}
