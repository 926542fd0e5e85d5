package io.sandboxd.router.vetting;

/**
 * Strict IP literal text to address bytes, for every place the router is handed an address as text
 * (X-Sandbox-Pod-IP, a Pod's status.podIP, a CIDR flag). Only the canonical spellings are accepted:
 * four decimal IPv4 parts without leading zeros, and RFC 4291 IPv6 text (optionally ending in such
 * an IPv4). Octal, hex, single-number and short IPv4 forms ({@code 0177.0.0.1}, {@code 0x7f.1},
 * {@code 2130706433}, {@code 127.1}), trailing dots, zone ids, brackets and whitespace are refused:
 * every resolver reads them differently, and a form the router reads one way must never be dialled
 * as another.
 */
public final class IpLiteral {
    private IpLiteral() {}

    /** 4 bytes for IPv4, 16 for IPv6, or null when {@code s} is not a strict literal. */
    public static byte[] parse(String s) {
        if (s == null || s.isEmpty() || s.length() > 45) {
            return null;
        }
        return s.indexOf(':') >= 0 ? parseV6(s) : parseV4(s, 0, s.length());
    }

    static byte[] parseV4(String s, int from, int to) {
        byte[] out = new byte[4];
        int part = 0;
        int i = from;
        while (part < 4) {
            int start = i;
            int v = 0;
            while (i < to && i - start < 4 && isDigit(s.charAt(i))) {
                v = v * 10 + (s.charAt(i) - '0');
                i++;
            }
            int len = i - start;
            if (len == 0 || len > 3 || v > 255 || (len > 1 && s.charAt(start) == '0')) {
                return null;
            }
            out[part++] = (byte) v;
            if (part < 4) {
                if (i >= to || s.charAt(i) != '.') {
                    return null;
                }
                i++;
            }
        }
        return i == to ? out : null;
    }

    static byte[] parseV6(String s) {
        int gap = s.indexOf("::");
        if (gap >= 0 && s.indexOf("::", gap + 1) >= 0) {
            return null; // "::" may appear once
        }
        byte[] out = new byte[16];
        if (gap < 0) {
            return fill(s, 0, s.length(), out, 0, 16) == 16 ? out : null;
        }
        byte[] head = new byte[16];
        int headLen = gap == 0 ? 0 : fill(s, 0, gap, head, 0, 14);
        byte[] tail = new byte[16];
        int tailLen = gap + 2 == s.length() ? 0 : fill(s, gap + 2, s.length(), tail, 0, 14);
        if (headLen < 0 || tailLen < 0 || headLen + tailLen > 14) {
            return null; // "::" stands for at least one group of zeros
        }
        System.arraycopy(head, 0, out, 0, headLen);
        System.arraycopy(tail, 0, out, 16 - tailLen, tailLen);
        return out;
    }

    /**
     * Parses colon-separated groups of {@code s[from, to)} into {@code out} from {@code at}; the last
     * group of the whole text may be a dotted IPv4. Returns the number of bytes written, or -1 if malformed or more than
     * {@code max}.
     */
    private static int fill(String s, int from, int to, byte[] out, int at, int max) {
        int n = 0;
        int i = from;
        while (true) {
            int end = s.indexOf(':', i);
            if (end < 0 || end > to) {
                end = to;
            }
            if (end == to && to == s.length() && s.indexOf('.', i) >= 0) {
                if (n + 4 > max) {
                    return -1;
                }
                byte[] v4 = parseV4(s, i, to);
                if (v4 == null) {
                    return -1;
                }
                System.arraycopy(v4, 0, out, at + n, 4);
                return n + 4;
            }
            int len = end - i;
            if (len < 1 || len > 4 || n + 2 > max) {
                return -1;
            }
            int v = 0;
            for (int k = i; k < end; k++) {
                int d = Character.digit(s.charAt(k), 16);
                if (d < 0 || s.charAt(k) > 'f') {
                    return -1; // Character.digit also takes non-ASCII digits
                }
                v = (v << 4) | d;
            }
            out[at + n] = (byte) (v >> 8);
            out[at + n + 1] = (byte) v;
            n += 2;
            if (end == to) {
                return n;
            }
            i = end + 1;
            if (i == to) {
                return -1; // trailing single ':'
            }
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** Canonical text (RFC 5952 for IPv6), for logs and messages. */
    public static String format(byte[] a) {
        if (a.length == 4) {
            return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 0;
        for (int g = 0; g < 8; ) {
            if (group(a, g) == 0) {
                int start = g;
                while (g < 8 && group(a, g) == 0) {
                    g++;
                }
                if (g - start > bestLen && g - start > 1) {
                    bestStart = start;
                    bestLen = g - start;
                }
            } else {
                g++;
            }
        }
        StringBuilder b = new StringBuilder(39);
        for (int g = 0; g < 8; g++) {
            if (g == bestStart) {
                b.append("::");
                g += bestLen - 1;
                continue;
            }
            if (b.length() > 0 && b.charAt(b.length() - 1) != ':') {
                b.append(':');
            }
            b.append(Integer.toHexString(group(a, g)));
        }
        return b.toString();
    }

    private static int group(byte[] a, int g) {
        return ((a[2 * g] & 0xff) << 8) | (a[2 * g + 1] & 0xff);
    }
}
