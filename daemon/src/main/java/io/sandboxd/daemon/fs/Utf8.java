package io.sandboxd.daemon.fs;

/**
 * Pure functions over names that may not be UTF-8. {@link #lossy} renders a name the way the
 * upstream Go daemon's JSON encoder does (each byte that does not start a valid sequence becomes
 * one U+FFFD), so listings of such names carry the same {@code name} string upstream's do.
 */
public final class Utf8 {
    private static final char REPLACEMENT = '\uFFFD';
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private Utf8() {}

    public static boolean isValid(byte[] b) {
        for (int i = 0; i < b.length; ) {
            int n = sequenceLength(b, i);
            if (n == 0) {
                return false;
            }
            i += n;
        }
        return true;
    }

    /** Valid sequences decoded, every other byte one U+FFFD (Go's {@code utf8.DecodeRune} steps). */
    public static String lossy(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length);
        for (int i = 0; i < b.length; ) {
            int n = sequenceLength(b, i);
            if (n == 0) {
                sb.append(REPLACEMENT);
                i++;
                continue;
            }
            sb.appendCodePoint(decode(b, i, n));
            i += n;
        }
        return sb.toString();
    }

    /**
     * Every byte outside RFC 3986's unreserved set as {@code %XX}: the form a client puts in
     * {@code /v1/files/...} to address this exact name, whatever its bytes.
     */
    public static String percentEncode(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 3);
        for (byte x : b) {
            int c = x & 0xff;
            if (c >= 'a' && c <= 'z'
                    || c >= 'A' && c <= 'Z'
                    || c >= '0' && c <= '9'
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return sb.toString();
    }

    /**
     * Length of the well-formed UTF-8 sequence at {@code i} (RFC 3629: no overlongs, no
     * surrogates, nothing above U+10FFFF), or 0 if there is none.
     */
    static int sequenceLength(byte[] b, int i) {
        int c = b[i] & 0xff;
        if (c < 0x80) {
            return 1;
        }
        int n;
        int min;
        int max = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) {
            n = 2;
            min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 3;
            min = c == 0xe0 ? 0xa0 : 0x80;
            max = c == 0xed ? 0x9f : 0xbf;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 4;
            min = c == 0xf0 ? 0x90 : 0x80;
            max = c == 0xf4 ? 0x8f : 0xbf;
        } else {
            return 0;
        }
        if (i + n > b.length) {
            return 0;
        }
        int second = b[i + 1] & 0xff;
        if (second < min || second > max) {
            return 0;
        }
        for (int k = 2; k < n; k++) {
            int x = b[i + k] & 0xff;
            if (x < 0x80 || x > 0xbf) {
                return 0;
            }
        }
        return n;
    }

    private static int decode(byte[] b, int i, int n) {
        int c = b[i] & 0xff;
        return switch (n) {
            case 1 -> c;
            case 2 -> (c & 0x1f) << 6 | b[i + 1] & 0x3f;
            case 3 -> (c & 0x0f) << 12 | (b[i + 1] & 0x3f) << 6 | b[i + 2] & 0x3f;
            default -> (c & 0x07) << 18 | (b[i + 1] & 0x3f) << 12 | (b[i + 2] & 0x3f) << 6 | b[i + 3] & 0x3f;
        };
    }
}
