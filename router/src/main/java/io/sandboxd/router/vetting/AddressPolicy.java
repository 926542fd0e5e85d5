package io.sandboxd.router.vetting;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides whether the router may dial an address: pure, so it is tested exhaustively apart from
 * any socket. An address is refused when it, or an IPv4 address it embeds, is in a
 * {@code --deny-cidr} range (always wins), or is in an {@link AddressClass} without being in an
 * {@code --allow-cidr} range (for clusters whose Pod CIDR overlaps a class, e.g. 100.64.0.0/10).
 */
public final class AddressPolicy {
    private final List<Cidr> denied;
    private final List<Cidr> allowed;

    public AddressPolicy(List<Cidr> denied, List<Cidr> allowed) {
        this.denied = List.copyOf(denied);
        this.allowed = List.copyOf(allowed);
    }

    public static AddressPolicy builtIn() {
        return new AddressPolicy(List.of(), List.of());
    }

    /** This policy with {@code more} ranges allowed as well. */
    public AddressPolicy allowing(List<Cidr> more) {
        List<Cidr> a = new ArrayList<>(allowed);
        a.addAll(more);
        return new AddressPolicy(denied, a);
    }

    public List<Cidr> denied() {
        return denied;
    }

    public List<Cidr> allowed() {
        return allowed;
    }

    /**
     * Why {@code address} (4 or 16 bytes) must not be dialled, e.g. {@code "link-local
     * (169.254.0.0/16, fe80::/10)"} or {@code "IPv4 127.0.0.1 inside it is loopback (...)"}; empty
     * when it may be.
     */
    public Optional<String> refusal(byte[] address) {
        Optional<String> r = refusalOf(address);
        for (byte[] v4 : Embedded.ipv4s(address)) {
            if (r.isPresent()) {
                break;
            }
            r = refusalOf(v4).map(why -> "IPv4 " + IpLiteral.format(v4) + " inside it is " + why);
        }
        return r;
    }

    private Optional<String> refusalOf(byte[] a) {
        for (Cidr d : denied) {
            if (d.contains(a)) {
                return Optional.of("in denied range " + d + " (--deny-cidr)");
            }
        }
        for (Cidr ok : allowed) {
            if (ok.contains(a)) {
                return Optional.empty();
            }
        }
        AddressClass c = AddressClass.of(a);
        return c == null ? Optional.empty() : Optional.of(c.describe());
    }
}
