package io.sandboxd.router.vetting;

import io.sandboxd.router.resolve.ResolvedTarget;
import io.sandboxd.router.routing.RouteException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * The one gate between resolution and connect: every address a source produced is vetted, and the
 * address returned is the one dialled (already resolved, so no second lookup can switch it). A
 * target with any refused address is refused whole: a sandbox name that also resolves to the node
 * or the metadata service is not trusted for its other addresses either.
 */
public final class DialPolicy {
    private static final List<Cidr> LOOPBACK = AddressClass.LOOPBACK.ranges();

    private final AddressPolicy resolved;
    private final AddressPolicy podIpHeader;

    /** @param allowLoopbackPodIp tests and local benchmarks: X-Sandbox-Pod-IP may name loopback */
    public DialPolicy(AddressPolicy policy, boolean allowLoopbackPodIp) {
        this.resolved = policy;
        this.podIpHeader = allowLoopbackPodIp ? policy.allowing(LOOPBACK) : policy;
    }

    /**
     * @throws RouteException 400 for a refused X-Sandbox-Pod-IP (the caller's own input, echoed), 502
     *     for an address found by the cache or DNS (named by class only: the address is internal)
     */
    public InetSocketAddress choose(ResolvedTarget t, String namespace, String sandboxId) throws RouteException {
        boolean header = t.source() == ResolvedTarget.Source.POD_IP;
        AddressPolicy p = header ? podIpHeader : resolved;
        if (t.addresses().isEmpty()) {
            throw new RouteException(
                    502, "No address found for the backend sandbox " + namespace + "/" + sandboxId + ".");
        }
        for (InetAddress a : t.addresses()) {
            Optional<String> why = p.refusal(a.getAddress());
            if (why.isPresent()) {
                throw header
                        ? RouteException.badRequest("Invalid target IP address: " + IpLiteral.format(a.getAddress())
                                + " is " + why.get() + ".")
                        : new RouteException(
                                502,
                                "Refusing to dial the backend sandbox " + namespace + "/" + sandboxId + ": its "
                                        + t.source().tag() + " address is " + why.get() + ".");
            }
        }
        return new InetSocketAddress(t.addresses().get(0), t.port());
    }
}
