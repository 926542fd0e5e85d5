package io.sandboxd.conformance.suite;

import java.nio.charset.StandardCharsets;

/** Request targets for /v1/files: the SDK form (whole path one encoded segment) and the literal form. */
public final class Paths {
    private Paths() {}

    /** How the Go and Python SDKs send a path: every byte outside [A-Za-z0-9-_.~] escaped, '/' as %2F. */
    public static String enc(String relPath) {
        return "/v1/files/" + escape(relPath, false);
    }

    /** Literal '/' between segments, each segment escaped. */
    public static String lit(String relPath) {
        return "/v1/files/" + escape(relPath, true);
    }

    public static String escape(String s, boolean keepSlash) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || c == '.'
                    || c == '~'
                    || (keepSlash && c == '/')) {
                sb.append((char) c);
            } else {
                sb.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return sb.toString();
    }

    /** Single-quotes a string for sh. */
    public static String q(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
