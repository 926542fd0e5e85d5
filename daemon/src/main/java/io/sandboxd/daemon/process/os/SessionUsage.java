package io.sandboxd.daemon.process.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * CPU time and resident memory of whole process trees, from one walk of {@code /proc}: a tree is
 * every process of a session the core created (each process it starts leads its own session, so
 * its descendants are there unless they left with setsid). Processes that go while the walk runs
 * are skipped.
 */
public final class SessionUsage {
    /** What one session's processes use right now. */
    public record Usage(int processes, long cpuMillis, long rssBytes) {}

    /** Sums of one session while walking. */
    private static final class Sum {
        int processes;
        long ticks;
        long pages;

        Usage usage() {
            return new Usage(processes, ticks * 1000 / TICKS, pages * PAGE);
        }
    }

    private static final long TICKS = positive(NativeIo.sysconf(NativeIo.SC_CLK_TCK), 100);
    private static final long PAGE = positive(NativeIo.sysconf(NativeIo.SC_PAGESIZE), 4096);

    private SessionUsage() {}

    private static long positive(long v, long fallback) {
        return v > 0 ? v : fallback;
    }

    /** The usage of each of {@code sessions} that still has a process (the others are left out). */
    public static Map<Long, Usage> of(Set<Long> sessions) {
        Map<Long, Sum> sums = new HashMap<>();
        Map<Long, Usage> out = new HashMap<>();
        if (sessions.isEmpty()) {
            return out;
        }
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc"), SessionUsage::isPid)) {
            for (Path p : dir) {
                ProcStatLine line;
                try {
                    line = ProcStatLine.parse(Files.readString(p.resolve("stat"), StandardCharsets.ISO_8859_1));
                } catch (IOException | IllegalArgumentException e) {
                    continue; // gone meanwhile
                }
                if (sessions.contains(line.session())) {
                    Sum sum = sums.computeIfAbsent(line.session(), k -> new Sum());
                    sum.processes++;
                    sum.ticks += line.cpuTicks();
                    sum.pages += line.rssPages();
                }
            }
        } catch (IOException e) {
            // no /proc: nothing to tell
        }
        sums.forEach((k, v) -> out.put(k, v.usage()));
        return out;
    }

    private static boolean isPid(Path p) {
        String s = p.getFileName().toString();
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
