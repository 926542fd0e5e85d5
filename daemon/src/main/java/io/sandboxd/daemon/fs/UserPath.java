package io.sandboxd.daemon.fs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A client path, lexically cleaned into segments relative to the root (runtime-contract §2.1). Pure:
 * no I/O. Segments are bytes ({@link Name}): a path addresses any name a process can create,
 * UTF-8 or not. Absolute paths are re-rooted ({@code /etc/passwd} means {@code <root>/etc/passwd},
 * and {@code <root>/x} means {@code <root>/x}); {@code .} and empty segments vanish; a {@code ..}
 * that would climb above the root is a PERMISSION_DENIED ({@link PathFailure#ESCAPES}).
 */
public record UserPath(List<Name> segments) {
    /** Linux NAME_MAX, in bytes. */
    public static final int MAX_NAME_BYTES = 255;
    /** Linux PATH_MAX less the root and terminator. */
    public static final int MAX_PATH_BYTES = 4095;
    /** Prefix of in-flight upload temp files; never listed, never addressable. */
    public static final String TEMP_PREFIX = ".sandboxd-upload-";

    static final byte[] TEMP_PREFIX_BYTES = TEMP_PREFIX.getBytes(StandardCharsets.US_ASCII);

    public UserPath {
        segments = List.copyOf(segments);
    }

    public static UserPath root() {
        return new UserPath(List.of());
    }

    public boolean isRoot() {
        return segments.isEmpty();
    }

    /** @param raw a path as text (a process cwd); see {@link #parse(byte[], byte[])} */
    public static UserPath parse(String raw, String rootString) throws PathException {
        return parse(raw.getBytes(StandardCharsets.UTF_8), rootString.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param raw       the decoded client path, as bytes
     * @param rootBytes the real root path, e.g. {@code /workspace}, whose prefix is stripped
     */
    public static UserPath parse(byte[] raw, byte[] rootBytes) throws PathException {
        for (byte b : raw) {
            if (b == 0) {
                throw new PathException(PathFailure.INVALID, "path contains a NUL byte");
            }
        }
        if (raw.length > MAX_PATH_BYTES) {
            throw new PathException(PathFailure.INVALID, "path is too long (more than " + MAX_PATH_BYTES + " bytes)");
        }
        List<Name> parts = split(raw);
        if (raw.length > 0 && raw[0] == '/') {
            List<Name> lexical = lexicalClean(parts, false);
            List<Name> rootSegs = lexicalClean(split(rootBytes), false);
            if (startsWith(lexical, rootSegs)) {
                parts = lexical.subList(rootSegs.size(), lexical.size());
            }
        }
        List<Name> segs = lexicalClean(parts, true);
        for (Name s : segs) {
            if (s.length() > MAX_NAME_BYTES) {
                throw new PathException(
                        PathFailure.INVALID, "a path segment is longer than " + MAX_NAME_BYTES + " bytes");
            }
            if (s.startsWith(TEMP_PREFIX_BYTES)) {
                throw new PathException(
                        PathFailure.INVALID,
                        "names starting with " + TEMP_PREFIX + " are reserved for in-flight uploads");
            }
        }
        return new UserPath(segs);
    }

    /** The {@code /}-separated parts of {@code b}, empty ones included. */
    static List<Name> split(byte[] b) {
        List<Name> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= b.length; i++) {
            if (i == b.length || b[i] == '/') {
                byte[] part = new byte[i - start];
                System.arraycopy(b, start, part, 0, part.length);
                out.add(Name.of(part));
                start = i + 1;
            }
        }
        return out;
    }

    static boolean startsWith(List<Name> path, List<Name> prefix) {
        return path.size() >= prefix.size() && path.subList(0, prefix.size()).equals(prefix);
    }

    /**
     * Drops empty and {@code .} parts and applies {@code ..}; one above the top is an escape when
     * {@code strict}, and vanishes otherwise (as the kernel treats {@code /..}).
     */
    static List<Name> lexicalClean(List<Name> parts, boolean strict) throws PathException {
        List<Name> out = new ArrayList<>(parts.size());
        for (Name s : parts) {
            if (s.isEmpty() || s.isDot()) {
                continue;
            }
            if (s.isDotDot()) {
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
        StringBuilder sb = new StringBuilder();
        for (Name s : segments) {
            sb.append('/').append(s.display());
        }
        return sb.length() == 0 ? "/" : sb.toString();
    }
}
