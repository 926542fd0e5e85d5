package io.sandboxd.router.routing;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Pure parser for {@code <prefix>/<namespace>/<id>/<port>/<rest>}: browsers cannot set headers on
 * navigations, iframes or {@code new WebSocket(url)}. The remainder is forwarded exactly as
 * received (escapes such as %2F are kept); only the three routing segments are decoded.
 */
public final class PathRoute {
    public static final String SHAPE_ERROR = "Path-routed request must have the form %s/<namespace>/<id>/<port>/...";
    public static final String ESCAPE_ERROR = "Invalid percent-encoding in path.";

    private final String prefix;

    /** @param prefix starts with '/', does not end with '/', e.g. {@code /router} */
    public PathRoute(String prefix) {
        if (!prefix.startsWith("/") || prefix.endsWith("/") || prefix.length() < 2) {
            throw new IllegalArgumentException(
                    "--path-routing-prefix must start with '/' and must not end with '/': " + prefix);
        }
        this.prefix = prefix;
    }

    /** Whether this origin-form target is path-routed (and so must not fall through to headers). */
    public boolean matches(String target) {
        return target.startsWith(prefix) && target.length() > prefix.length() && target.charAt(prefix.length()) == '/';
    }

    /**
     * The three segments plus the byte-exact forward target, or an exception for a malformed route.
     * Call only when {@link #matches} is true.
     */
    public Parsed parse(String target) throws RouteException {
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? "" : target.substring(q);
        String rest = path.substring(prefix.length() + 1);
        String[] seg = new String[3];
        int from = 0;
        String remainder = "";
        for (int i = 0; i < 3; i++) {
            int slash = rest.indexOf('/', from);
            int end = slash < 0 ? rest.length() : slash;
            if (end == from) {
                throw RouteException.badRequest(String.format(SHAPE_ERROR, prefix));
            }
            seg[i] = rest.substring(from, end);
            if (slash < 0) {
                if (i < 2) {
                    throw RouteException.badRequest(String.format(SHAPE_ERROR, prefix));
                }
            } else if (i == 2) {
                remainder = rest.substring(slash + 1);
            }
            from = end + 1;
        }
        String ns = decode(seg[0]);
        String id = decode(seg[1]);
        String port = decode(seg[2]);
        return new Parsed(ns, id, port, "/" + remainder + query);
    }

    /** Decoded routing segments (still to be validated) and the forward target. */
    public record Parsed(String namespace, String sandboxId, String port, String forwardUri) {}

    static String decode(String s) throws RouteException {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw RouteException.badRequest(ESCAPE_ERROR);
                }
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw RouteException.badRequest(ESCAPE_ERROR);
                }
                out.write((hi << 4) | lo);
                i += 2;
            } else {
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
