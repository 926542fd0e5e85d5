package io.sandboxd.bench.footprint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What {@code /proc/PID} says about a process's memory, threads and CPU (no signal, no attach). */
final class ProcFigures {
    /** {@code smaps_rollup}'s Rss, Pss and Private_Dirty, and status's VmRSS and Threads. */
    record Memory(long rssBytes, long pssBytes, long privateDirtyBytes, long vmRssBytes, int threads) {}

    private ProcFigures() {}

    static Memory memory(long pid) throws IOException {
        String rollup = read(pid, "smaps_rollup");
        String status = read(pid, "status");
        return new Memory(
                kib(rollup, "Rss"), kib(rollup, "Pss"), kib(rollup, "Private_Dirty"), kib(status, "VmRSS"), (int)
                        field(status, "Threads"));
    }

    static String smaps(long pid) throws IOException {
        return read(pid, "smaps");
    }

    /**
     * The process's own CPU time (utime + stime of all its threads, living and exited; not its
     * reaped children's) in clock ticks, i.e. 10 ms on Linux's USER_HZ of 100.
     */
    static long cpuTicks(long pid) throws IOException {
        return cpuTicks(read(pid, "stat"));
    }

    static long cpuTicks(String stat) {
        // comm may hold spaces and parentheses: the fields start after the last ')'.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state); utime and stime are fields 14 and 15.
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    static final double MS_PER_TICK = 10.0;

    private static String read(long pid, String name) throws IOException {
        return Files.readString(Path.of("/proc", Long.toString(pid), name), StandardCharsets.ISO_8859_1);
    }

    static long kib(String text, String key) {
        return field(text, key) * 1024;
    }

    private static long field(String text, String key) {
        Matcher m = Pattern.compile("^" + Pattern.quote(key) + ":\\s+(\\d+)", Pattern.MULTILINE)
                .matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + key + " line in /proc output");
        }
        return Long.parseLong(m.group(1));
    }
}
