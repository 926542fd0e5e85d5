package io.sandboxd.logging;

/**
 * JSON string escaping shared by the daemon's REST bodies and the JSON log format, so neither needs a JSON
 * library or reflection. Escapes like Go's encoder ({@code <>&} as \\u003c…) to match upstream's
 * bytes, and escapes lone surrogates so the output is always valid UTF-8.
 */
public final class JsonText {
    private JsonText() {}

    public static void appendString(StringBuilder sb, String s) {
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
                    if (c < 0x20
                            || c == 0x7f
                            || c == '\u2028'
                            || c == '\u2029'
                            || Character.isSurrogate(c)
                                    && !(Character.isHighSurrogate(c)
                                            && i + 1 < s.length()
                                            && Character.isLowSurrogate(s.charAt(i + 1)))
                                    && !(Character.isLowSurrogate(c)
                                            && i > 0
                                            && Character.isHighSurrogate(s.charAt(i - 1)))) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
