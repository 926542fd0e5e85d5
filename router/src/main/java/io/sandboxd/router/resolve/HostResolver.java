package io.sandboxd.router.resolve;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/** Name lookup for the DNS fallback; injectable so tests resolve cluster names without real DNS. */
@FunctionalInterface
public interface HostResolver {
    /** Every address of {@code host} (all are vetted before one is dialled). */
    List<InetAddress> resolve(String host) throws UnknownHostException;

    /** The JVM resolver (honours /etc/resolv.conf search paths and the JVM's positive cache). */
    static HostResolver system() {
        return host -> List.of(InetAddress.getAllByName(host));
    }
}
