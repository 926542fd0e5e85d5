package io.sandboxd.daemon.fs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A client path, lexically cleaned into segments relative to the root (CONTRACT §2.1). Pure:
 * no I/O. Absolute paths are re-rooted ({@code /etc/passwd} means {@code <root>/etc/passwd}, and
 * {@code <root>/x} means {@code <root>/x}); {@code .} and empty segments vanish; a {@code ..} that
 * would climb above the root is a PERMISSION_DENIED ({@link PathFailure#ESCAPES}).
 */
public record UserPath(List<String> segments) {
    /** Linux NAME_MAX, in bytes. */
    public static final int MAX_NAME_BYTES = 255;
    /** Linux PATH_MAX less the root and terminator. */
    public static final int MAX_PATH_BYTES = 4095;
    /** Prefix of in-flight upload temp files; never listed, never addressable. */
    public static final String TEMP_PREFIX = ".sandboxd-upload-";

    public UserPath {
        segments = List.copyOf(segments);
    }

    public static UserPath root() {
        return new UserPath(List.of());
    }

    public boolean isRoot() {
        return segments.isEmpty();
    }

    /**
     * @param raw        the decoded client path
     * @param rootString the real root path, e.g. {@code /workspace}, whose prefix is stripped
     */
    public static UserPath parse(String raw, String rootString) throws PathException {
        if (raw.indexOf('\0') >= 0) {
            throw new PathException(PathFailure.INVALID, "path contains a NUL byte");
        }
        if (raw.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            throw new PathException(PathFailure.INVALID, "path is too long");
        }
        String p = raw;
        if (p.startsWith("/")) {
            String lexical = "/" + String.join("/", lexicalClean(p.split("/"), false));
            if (lexical.equals(rootString)) {
                p = "";
            } else if (lexical.startsWith(rootString + "/")) {
                p = lexical.substring(rootString.length() + 1);
            }
        }
        List<String> segs = lexicalClean(p.split("/"), true);
        for (String s : segs) {
            if (s.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
                throw new PathException(PathFailure.INVALID, "a path segment is longer than "
                        + MAX_NAME_BYTES + " bytes");
            }
            if (s.startsWith(TEMP_PREFIX)) {
                throw new PathException(PathFailure.INVALID,
                        "names starting with " + TEMP_PREFIX + " are reserved for in-flight uploads");
            }
        }
        return new UserPath(segs);
    }

    private static List<String> lexicalClean(String[] parts, boolean strict) throws PathException {
        List<String> out = new ArrayList<>(parts.length);
        for (String s : parts) {
            if (s.isEmpty() || s.equals(".")) {
                continue;
            }
            if (s.equals("..")) {
                if (out.isEmpty()) {
                    if (strict) {
                        throw escapes();
                    }
                    continue;
                }
                out.remove(out.size() - 1);
                continue;
            }
            out.add(s);
        }
        return out;
    }

    static PathException escapes() {
        return new PathException(PathFailure.ESCAPES);
    }

    @Override
    public String toString() {
        return "/" + String.join("/", segments);
    }
}
