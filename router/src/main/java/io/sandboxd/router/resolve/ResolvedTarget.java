package io.sandboxd.router.resolve;

import java.net.InetSocketAddress;

/**
 * A dialable backend.
 *
 * @param address the IP and port to connect to
 * @param hostHeader the Host header the backend sees ({@code <id>.<ns>.svc.<domain>:port} or {@code ip:port})
 * @param source how it was found, for metrics and cache eviction
 */
public record ResolvedTarget(InetSocketAddress address, String hostHeader, Source source) {
  public enum Source {
    POD_IP("pod_ip"),
    CACHE("cache"),
    DNS("dns");

    private final String tag;

    Source(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }
  }
}
