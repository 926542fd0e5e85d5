package io.sandboxd.router.routing;

/** Pure validation of the routing inputs; the same rules as upstream's headers.go. */
public final class RouteValidation {
    private static final int MAX_LABEL = 63;

    private RouteValidation() {}

    /** RFC 1123 label as Kubernetes uses it: {@code [a-z0-9]([-a-z0-9]*[a-z0-9])?}, at most 63 chars. */
    public static boolean isDns1123Label(String s) {
        if (s == null || s.isEmpty() || s.length() > MAX_LABEL) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (!alnum && !(c == '-' && i > 0 && i < s.length() - 1)) {
                return false;
            }
        }
        return true;
    }

    /** Returns the port, or -1 when the text is not a plain decimal integer in [1, 65535]. */
    public static int parsePort(String s) {
        if (s == null || s.isEmpty() || s.length() > 5) {
            return -1;
        }
        int v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v >= 1 && v <= 65535 ? v : -1;
    }
}
