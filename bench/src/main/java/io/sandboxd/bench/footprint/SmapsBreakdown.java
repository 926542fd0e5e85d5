package io.sandboxd.bench.footprint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sums {@code /proc/PID/smaps} into {@link Category categories}: first by the JVM's own ranges
 * (heap, class space, code cache, archives, from {@link JvmRegions}), then by file (libjvm, the
 * {@code .jsa}/{@code .aot} archives, other files), then anonymous memory: thread stacks are
 * {@code [stack]} and every read-write mapping directly above a small inaccessible one (the guard
 * pages glibc and the JVM put below a thread's stack); the rest is other anon.
 */
final class SmapsBreakdown {
    /** Resident and private-dirty bytes of one category. */
    record Usage(long rssBytes, long privateDirtyBytes) {
        Usage plus(long rss, long pd) {
            return new Usage(rssBytes + rss, privateDirtyBytes + pd);
        }
    }

    /** A guard below a stack is a few pages (glibc 4 KiB, HotSpot's zones 16-20 KiB); larger ---p areas are reservations. */
    static final long MAX_GUARD_BYTES = 64 << 10;

    private static final Pattern HEADER = Pattern.compile("^([0-9a-f]+)-([0-9a-f]+) (\\S{4}) \\S+ \\S+ \\d+\\s*(.*)$");

    private record Mapping(long start, long end, String perms, String path, long rss, long privateDirty) {}

    private SmapsBreakdown() {}

    /** Category → usage, in {@link Category#ALL} order (every category present, zero if unused). */
    static Map<String, Usage> of(String smaps, JvmRegions jvm) {
        List<Mapping> maps = parse(smaps);
        Map<String, Usage> out = new LinkedHashMap<>();
        for (String c : Category.ALL) {
            out.put(c, new Usage(0, 0));
        }
        Mapping prev = null;
        for (Mapping m : maps) {
            String c = classify(m, prev, jvm);
            out.merge(c, new Usage(m.rss(), m.privateDirty()), (a, b) -> a.plus(b.rssBytes(), b.privateDirtyBytes()));
            prev = m;
        }
        return out;
    }

    private static String classify(Mapping m, Mapping prev, JvmRegions jvm) {
        String byRange = jvm.categoryOf(m.start());
        if (byRange != null) {
            return byRange;
        }
        String path = m.path();
        if (path.endsWith("/libjvm.so")) {
            return Category.LIBJVM;
        }
        if (path.endsWith(".jsa") || path.endsWith(".aot")) {
            return Category.CDS;
        }
        if (path.startsWith("[stack")) {
            return Category.STACKS;
        }
        if (path.startsWith("/")) {
            return Category.FILES;
        }
        boolean guardBelow = prev != null
                && prev.end() == m.start()
                && prev.path().isEmpty()
                && prev.perms().startsWith("---")
                && prev.end() - prev.start() <= MAX_GUARD_BYTES;
        if (path.isEmpty() && m.perms().startsWith("rw") && guardBelow) {
            return Category.STACKS;
        }
        return Category.OTHER_ANON;
    }

    private static List<Mapping> parse(String smaps) {
        List<Mapping> out = new ArrayList<>();
        long start = 0;
        long end = 0;
        String perms = null;
        String path = null;
        long rss = 0;
        long pd = 0;
        for (String line : smaps.split("\n")) {
            Matcher h = HEADER.matcher(line);
            if (h.matches()) {
                if (perms != null) {
                    out.add(new Mapping(start, end, perms, path, rss, pd));
                }
                start = Long.parseUnsignedLong(h.group(1), 16);
                end = Long.parseUnsignedLong(h.group(2), 16);
                perms = h.group(3);
                path = h.group(4).trim();
                rss = 0;
                pd = 0;
            } else if (line.startsWith("Rss:")) {
                rss = kib(line);
            } else if (line.startsWith("Private_Dirty:")) {
                pd = kib(line);
            }
        }
        if (perms != null) {
            out.add(new Mapping(start, end, perms, path, rss, pd));
        }
        return out;
    }

    private static long kib(String line) {
        String v = line.substring(line.indexOf(':') + 1).trim();
        return Long.parseLong(v.substring(0, v.indexOf(' '))) * 1024;
    }
}
