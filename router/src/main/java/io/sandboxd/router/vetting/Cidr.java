package io.sandboxd.router.vetting;

import java.util.Arrays;

/**
 * An address range, {@code 10.0.0.0/8} or {@code fd00::/8}. An IPv4 range only holds IPv4
 * addresses and an IPv6 range only IPv6 ones; IPv4 embedded in IPv6 is unwrapped by
 * {@link AddressPolicy} before ranges are asked.
 */
public final class Cidr {
    private final byte[] network;
    private final int prefixLength;

    private Cidr(byte[] network, int prefixLength) {
        this.network = network;
        this.prefixLength = prefixLength;
    }

    /**
     * Parses {@code address/length} with a strict {@link IpLiteral} address; host bits must be zero
     * so that a typo such as {@code 10.0.0.1/8} is refused instead of silently widened.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static Cidr parse(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("CIDR '" + text + "' has no /prefix-length");
        }
        byte[] net = IpLiteral.parse(text.substring(0, slash));
        if (net == null) {
            throw new IllegalArgumentException("CIDR '" + text + "' does not start with a strict IP literal");
        }
        String len = text.substring(slash + 1);
        int max = net.length * 8;
        int p;
        if (len.isEmpty()
                || len.length() > 3
                || !len.chars().allMatch(c -> c >= '0' && c <= '9')
                || (p = Integer.parseInt(len)) > max) {
            throw new IllegalArgumentException("CIDR '" + text + "' needs a prefix length 0.." + max);
        }
        if (hasHostBits(net, p)) {
            throw new IllegalArgumentException("CIDR '" + text + "' has host bits set beyond /" + p);
        }
        return new Cidr(net, p);
    }

    private static boolean hasHostBits(byte[] a, int prefix) {
        for (int bit = prefix; bit < a.length * 8; bit++) {
            if ((a[bit / 8] & (0x80 >> (bit % 8))) != 0) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code address} (4 or 16 bytes) is of this range's family and inside it. */
    public boolean contains(byte[] address) {
        if (address.length != network.length) {
            return false;
        }
        int full = prefixLength / 8;
        for (int i = 0; i < full; i++) {
            if (address[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixLength % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (address[full] & mask) == (network[full] & mask);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr c && c.prefixLength == prefixLength && Arrays.equals(c.network, network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + prefixLength;
    }

    @Override
    public String toString() {
        return IpLiteral.format(network) + "/" + prefixLength;
    }
}
