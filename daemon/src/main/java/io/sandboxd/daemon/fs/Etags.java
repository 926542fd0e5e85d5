package io.sandboxd.daemon.fs;

/** Entity-tag comparison of RFC 9110 §8.8.3 for If-Match / If-None-Match header values. */
public final class Etags {
    private Etags() {}

    /** Strong comparison (If-Match): weak tags never match. {@code *} matches anything. */
    public static boolean matches(String header, String etag) {
        return matches(header, etag, false);
    }

    /** Weak comparison (If-None-Match): {@code W/"x"} matches {@code "x"}. */
    public static boolean matchesWeak(String header, String etag) {
        return matches(header, etag, true);
    }

    private static boolean matches(String header, String etag, boolean weak) {
        for (String raw : header.split(",")) {
            String t = raw.trim();
            if (t.equals("*")) {
                return true;
            }
            if (t.startsWith("W/")) {
                if (!weak) {
                    continue;
                }
                t = t.substring(2);
            }
            if (t.equals(etag)) {
                return true;
            }
        }
        return false;
    }
}
