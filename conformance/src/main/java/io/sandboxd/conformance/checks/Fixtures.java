package io.sandboxd.conformance.checks;

import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckSkipped;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Helpers shared by checks that need a place outside the root or look for leaked paths. */
final class Fixtures {
    private static final Pattern ABS_PATH = Pattern.compile("(?<![\\w.\\-])/[^\\s\"'(),;:]+");

    private Fixtures() {}

    /** A directory outside the root that surely exists: the root's parent, or "/" for a root directly under "/". */
    static String outsideTarget(String rootAbs) {
        int slash = rootAbs.lastIndexOf('/');
        return slash <= 0 ? "/" : rootAbs.substring(0, slash);
    }

    /** Escape checks need a root that is not "/" itself. */
    static void requireConfinedRoot(CheckContext ctx) {
        if (ctx.suite().rootAbs().equals("/")) {
            throw new CheckSkipped("the runtime's root is \"/\": nothing can escape it");
        }
    }

    /**
     * The first absolute path in {@code message} that lies outside the root and is not the value the
     * client itself sent, or null.
     */
    static String leakedPath(String message, String rootAbs, String clientValue) {
        Matcher m = ABS_PATH.matcher(message);
        while (m.find()) {
            String p = m.group();
            while (p.endsWith(".") && p.length() > 1) {
                p = p.substring(0, p.length() - 1);
            }
            boolean inside = p.equals(rootAbs) || p.startsWith(rootAbs.endsWith("/") ? rootAbs : rootAbs + "/");
            boolean echoed = clientValue != null && (clientValue.contains(p) || p.equals("/" + clientValue));
            if (!inside && !echoed && !p.equals("/")) {
                return p;
            }
        }
        return null;
    }
}
