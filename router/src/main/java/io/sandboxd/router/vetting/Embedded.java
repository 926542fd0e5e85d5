package io.sandboxd.router.vetting;

import java.util.ArrayList;
import java.util.List;

/**
 * The IPv4 addresses an IPv6 address carries and would reach through a translator or tunnel:
 * IPv4-mapped {@code ::ffff:0:0/96} (the kernel dials the IPv4 itself), NAT64 {@code 64:ff9b::/96}
 * (RFC 6052) and local-use NAT64 {@code 64:ff9b:1::/48} (RFC 8215; the operator picks a /48 to /96
 * prefix, so each RFC 6052 position is a candidate), 6to4 {@code 2002::/16} (RFC 3056) and Teredo
 * {@code 2001::/32} (RFC 4380: the server, and the client stored inverted).
 */
final class Embedded {
    private static final Cidr MAPPED = Cidr.parse("::ffff:0:0/96");
    private static final Cidr NAT64 = Cidr.parse("64:ff9b::/96");
    private static final Cidr NAT64_LOCAL = Cidr.parse("64:ff9b:1::/48");
    private static final Cidr SIX_TO_FOUR = Cidr.parse("2002::/16");
    private static final Cidr TEREDO = Cidr.parse("2001::/32");

    private Embedded() {}

    static List<byte[]> ipv4s(byte[] a) {
        List<byte[]> out = new ArrayList<>(2);
        if (a.length != 16) {
            return out;
        }
        if (MAPPED.contains(a) || NAT64.contains(a)) {
            out.add(pick(a, 12, 13, 14, 15));
        } else if (NAT64_LOCAL.contains(a)) {
            // RFC 6052 §2.2: byte 8 (bits 64..71) is always zero, so /48, /56 and /64 straddle it.
            out.add(pick(a, 6, 7, 9, 10));
            out.add(pick(a, 7, 9, 10, 11));
            out.add(pick(a, 9, 10, 11, 12));
            out.add(pick(a, 12, 13, 14, 15));
        } else if (SIX_TO_FOUR.contains(a)) {
            out.add(pick(a, 2, 3, 4, 5));
        } else if (TEREDO.contains(a)) {
            out.add(pick(a, 4, 5, 6, 7));
            byte[] client = pick(a, 12, 13, 14, 15);
            for (int i = 0; i < 4; i++) {
                client[i] = (byte) ~client[i];
            }
            out.add(client);
        }
        return out;
    }

    private static byte[] pick(byte[] a, int i, int j, int k, int l) {
        return new byte[] {a[i], a[j], a[k], a[l]};
    }
}
