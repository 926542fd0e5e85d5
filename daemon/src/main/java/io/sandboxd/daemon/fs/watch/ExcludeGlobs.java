package io.sandboxd.daemon.fs.watch;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The exclude globs of a watch (runtime-contract §4.2), matched byte-wise against raw paths. Pure.
 *
 * <ul>
 *   <li>A glob without {@code /} matches an entry's name at any depth: {@code .git},
 *       {@code node_modules}, {@code *.log}.
 *   <li>A glob with {@code /} matches the entry's path relative to the watched directory (a
 *       leading {@code /} is optional): {@code build/out}, {@code src/**}{@code /gen}.
 *   <li>{@code *} is any run of bytes but {@code /}, {@code ?} one byte but {@code /}, {@code [a-z]}
 *       and {@code [!a-z]} a byte class, {@code **} any number of whole components. A trailing
 *       {@code /} is ignored.
 * </ul>
 *
 * An excluded directory is not watched at all: nothing below it is reported, and it costs no
 * kernel watch.
 */
final class ExcludeGlobs {
    static final int MAX_GLOBS = 64;
    static final int MAX_GLOB_BYTES = 1024;
    static final ExcludeGlobs NONE = new ExcludeGlobs(List.of(), List.of(), List.of());

    private final List<Pattern> names;
    private final List<Pattern> paths;
    private final List<String> source;

    private ExcludeGlobs(List<Pattern> names, List<Pattern> paths, List<String> source) {
        this.names = names;
        this.paths = paths;
        this.source = source;
    }

    /**
     * @param globs raw (one char per byte, see {@link WatchEvent})
     * @throws IllegalArgumentException with a client-facing message for a glob that cannot be used
     */
    static ExcludeGlobs parse(List<String> globs) {
        if (globs.size() > MAX_GLOBS) {
            throw new IllegalArgumentException("at most " + MAX_GLOBS + " exclude globs (got " + globs.size() + ")");
        }
        List<Pattern> names = new ArrayList<>();
        List<Pattern> paths = new ArrayList<>();
        for (String g : globs) {
            String raw = g;
            if (raw.length() > MAX_GLOB_BYTES) {
                throw new IllegalArgumentException("an exclude glob is longer than " + MAX_GLOB_BYTES + " bytes");
            }
            if (raw.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("an exclude glob contains a NUL byte");
            }
            while (raw.endsWith("/")) {
                raw = raw.substring(0, raw.length() - 1);
            }
            boolean anchored = raw.indexOf('/') >= 0;
            if (raw.startsWith("/")) {
                raw = raw.substring(1);
            }
            if (raw.isEmpty()) {
                throw new IllegalArgumentException("an exclude glob is empty");
            }
            (anchored ? paths : names).add(Pattern.compile(toRegex(raw), Pattern.DOTALL));
        }
        return new ExcludeGlobs(List.copyOf(names), List.copyOf(paths), List.copyOf(globs));
    }

    boolean isEmpty() {
        return names.isEmpty() && paths.isEmpty();
    }

    /** The globs as given, for telling watches apart. */
    List<String> source() {
        return source;
    }

    /**
     * @param relativePath the entry's raw path relative to the watched directory ({@code a/b})
     * @param name         its last component
     */
    boolean excludes(String relativePath, String name) {
        for (Pattern p : names) {
            if (p.matcher(name).matches()) {
                return true;
            }
        }
        for (Pattern p : paths) {
            if (p.matcher(relativePath).matches()) {
                return true;
            }
        }
        return false;
    }

    /** Whether matching needs the whole relative path, not only the name. */
    boolean needsPath() {
        return !paths.isEmpty();
    }

    static String toRegex(String glob) {
        StringBuilder re = new StringBuilder(glob.length() * 2);
        int i = 0;
        while (i < glob.length()) {
            char c = glob.charAt(i);
            if (c == '*' && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                boolean wholeStart = i == 0 || glob.charAt(i - 1) == '/';
                boolean slashAfter = i + 2 < glob.length() && glob.charAt(i + 2) == '/';
                boolean atEnd = i + 2 == glob.length();
                if (wholeStart && slashAfter) {
                    re.append("(?:[^/]*/)*"); // "**/": zero or more whole components
                    i += 3;
                    continue;
                }
                if (wholeStart && atEnd) {
                    re.append(".*");
                    i += 2;
                    continue;
                }
                re.append("[^/]*"); // "**" inside a name is just "*"
                i += 2;
                continue;
            }
            switch (c) {
                case '*' -> re.append("[^/]*");
                case '?' -> re.append("[^/]");
                case '[' -> {
                    int end = classEnd(glob, i);
                    if (end < 0) {
                        re.append("\\[");
                    } else {
                        re.append(byteClass(glob.substring(i + 1, end)));
                        i = end;
                    }
                }
                default -> appendLiteral(re, c);
            }
            i++;
        }
        return re.toString();
    }

    /** Index of the {@code ]} closing the class opened at {@code open}, or -1 when it is not closed. */
    private static int classEnd(String glob, int open) {
        int j = open + 1;
        if (j < glob.length() && (glob.charAt(j) == '!' || glob.charAt(j) == '^')) {
            j++;
        }
        if (j < glob.length() && glob.charAt(j) == ']') {
            j++; // a leading ] is a member
        }
        for (; j < glob.length(); j++) {
            if (glob.charAt(j) == ']') {
                return j;
            }
        }
        return -1;
    }

    private static String byteClass(String body) {
        StringBuilder sb = new StringBuilder("[");
        int k = 0;
        if (!body.isEmpty() && (body.charAt(0) == '!' || body.charAt(0) == '^')) {
            sb.append('^');
            k = 1;
        }
        for (; k < body.length(); k++) {
            char c = body.charAt(k);
            if (c == '-' && k > 0 && k + 1 < body.length()) {
                sb.append('-');
            } else {
                sb.append(String.format("\\x{%x}", (int) c));
            }
        }
        if (sb.charAt(1) == '^') {
            sb.append('/'); // a negated class still never matches the separator
        } else {
            sb.append("&&[^/]");
        }
        return sb.append(']').toString();
    }

    private static void appendLiteral(StringBuilder re, char c) {
        if (Character.isLetterOrDigit(c) && c < 0x80) {
            re.append(c);
        } else {
            re.append(String.format("\\x{%x}", (int) c));
        }
    }
}
