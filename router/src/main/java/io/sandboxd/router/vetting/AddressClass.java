package io.sandboxd.router.vetting;

import java.util.List;

/**
 * Address classes the router never dials unless a CIDR is allowed explicitly: its own node, the
 * cloud metadata services (169.254.169.254, fd00:ec2::254, 100.100.100.200, 192.0.0.192 all fall
 * in one of them) and ranges that are never a Pod. IPv4 embedded in IPv6 is checked separately
 * (see {@link Embedded}); the IPv6 forms that are nothing but a wrapper of an IPv4 address and never
 * a Pod's own address are classes of their own.
 */
public enum AddressClass {
    UNSPECIFIED("unspecified", "0.0.0.0/8", "::/128"),
    LOOPBACK("loopback", "127.0.0.0/8", "::1/128"),
    LINK_LOCAL("link-local", "169.254.0.0/16", "fe80::/10"),
    MULTICAST("multicast", "224.0.0.0/4", "ff00::/8"),
    BROADCAST("broadcast", "255.255.255.255/32"),
    RESERVED("reserved", "240.0.0.0/4"),
    CGNAT("carrier-grade NAT", "100.64.0.0/10"),
    IETF_PROTOCOL("IETF protocol assignments", "192.0.0.0/24"),
    UNIQUE_LOCAL("unique-local", "fc00::/7"),
    SITE_LOCAL("site-local (deprecated)", "fec0::/10"),
    IPV4_COMPATIBLE("IPv4-compatible IPv6 (deprecated)", "::/96"),
    IPV4_TRANSLATED("IPv4-translated IPv6", "::ffff:0:0:0/96");

    private final String label;
    private final List<Cidr> ranges;

    AddressClass(String label, String... ranges) {
        this.label = label;
        this.ranges = java.util.Arrays.stream(ranges).map(Cidr::parse).toList();
    }

    /** e.g. {@code link-local (169.254.0.0/16, fe80::/10)}: what a refusal names. */
    public String describe() {
        return label + " " + ranges.toString().replace('[', '(').replace(']', ')');
    }

    public List<Cidr> ranges() {
        return ranges;
    }

    /** The first class holding {@code address}, or null. Order matters: :: and ::1 are named before ::/96. */
    public static AddressClass of(byte[] address) {
        for (AddressClass c : values()) {
            for (Cidr r : c.ranges) {
                if (r.contains(address)) {
                    return c;
                }
            }
        }
        return null;
    }
}
