package io.sandboxd.router.resolve;

import java.net.InetAddress;
import java.util.List;

/**
 * What resolution found for a route, before vetting: every address is vetted and exactly one of
 * them is dialled (see {@link io.sandboxd.router.vetting.DialPolicy}), so nothing looks the name up
 * a second time.
 *
 * @param addresses every address the source gave, in its order (one for a Pod IP, all A/AAAA for DNS)
 * @param port the backend port
 * @param hostHeader the Host header the backend sees ({@code <id>.<ns>.svc.<domain>:port} or {@code ip:port})
 * @param source how it was found, for metrics, cache eviction and the refusal's status
 */
public record ResolvedTarget(List<InetAddress> addresses, int port, String hostHeader, Source source) {
    public ResolvedTarget {
        addresses = List.copyOf(addresses);
    }

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
