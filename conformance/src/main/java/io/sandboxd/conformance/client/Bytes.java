package io.sandboxd.conformance.client;

import java.nio.charset.StandardCharsets;

/** Renders bytes for humans reading a failure: printable ASCII as is, the rest escaped. */
public final class Bytes {
    private Bytes() {
    }

    public static String excerpt(byte[] b, int max) {
        StringBuilder sb = new StringBuilder("\"");
        int n = Math.min(b.length, max);
        for (int i = 0; i < n; i++) {
            int c = b[i] & 0xff;
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        sb.append((char) c);
                    } else {
                        sb.append(String.format("\\x%02x", c));
                    }
                }
            }
        }
        sb.append('"');
        if (b.length > max) {
            sb.append("... (").append(b.length).append(" bytes)");
        }
        return sb.toString();
    }

    public static String excerpt(String s, int max) {
        return excerpt(s.getBytes(StandardCharsets.UTF_8), max);
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
