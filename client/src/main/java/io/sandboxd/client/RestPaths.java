package io.sandboxd.client;

import java.nio.charset.StandardCharsets;

/**
 * How a sandbox path goes on the wire: {@code /v1/files/} followed by the path with every byte
 * outside RFC 3986's unreserved set percent-encoded, {@code /} included ({@code dir%2Ff.txt}),
 * as the upstream SDKs send it. Leading slashes are dropped: {@code /a/b} and {@code a/b} are the
 * same file, {@code ""} and {@code /} the root.
 */
public final class RestPaths {
    private RestPaths() {}

    /** {@code a/b c} → {@code /v1/files/a%2Fb%20c}. */
    public static String files(String path) {
        return "/v1/files/" + encode(relative(path));
    }

    /** The path without leading slashes. */
    public static String relative(String path) {
        int i = 0;
        while (i < path.length() && path.charAt(i) == '/') {
            i++;
        }
        return path.substring(i);
    }

    /** The path as users read it, with one leading {@code /}. */
    public static String display(String path) {
        return "/" + relative(path);
    }

    /** Percent-encodes every UTF-8 byte outside {@code A-Z a-z 0-9 - . _ ~}. */
    public static String encode(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return sb.toString();
    }
}
