package io.sandboxd.daemon.rest;

import java.nio.charset.StandardCharsets;

/** A minimal JSON writer for our few fixed response shapes (no reflection, no dependency). */
final class Json {
    private final StringBuilder sb = new StringBuilder(256);

    Json raw(String s) {
        sb.append(s);
        return this;
    }

    Json str(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '<' -> sb.append("\\u003c");
                case '>' -> sb.append("\\u003e");
                case '&' -> sb.append("\\u0026");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029' || Character.isSurrogate(c)
                            && !(Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)))
                            && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)))) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
        return this;
    }

    Json num(long n) {
        sb.append(n);
        return this;
    }

    byte[] bytes() {
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] error(String code, String message) {
        return new Json().raw("{\"code\":").str(code).raw(",\"message\":").str(message).raw("}\n").bytes();
    }
}
