package io.sandboxd.testkit.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The fields of {@code /proc/PID/stat} that tell who a process is and where it belongs: its
 * command name, state, parent, process group and session. The command name (field 2) may contain
 * spaces and parentheses, so the other fields are counted from the last {@code ')'}.
 */
public record ProcStat(long pid, String comm, char state, long ppid, long pgrp, long session) {

    public boolean zombie() {
        return state == 'Z';
    }

    /** Parses one stat line. @throws IllegalArgumentException if it is not a stat line */
    public static ProcStat parse(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open || close + 2 > line.length()) {
            throw new IllegalArgumentException("not a /proc stat line: " + line);
        }
        try {
            long pid = Long.parseLong(line.substring(0, open).trim());
            String comm = line.substring(open + 1, close);
            String[] rest = line.substring(close + 2).split(" ");
            return new ProcStat(
                    pid,
                    comm,
                    rest[0].charAt(0),
                    Long.parseLong(rest[1]),
                    Long.parseLong(rest[2]),
                    Long.parseLong(rest[3]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a /proc stat line: " + line, e);
        }
    }

    /** Reads a process's stat; empty if it has gone (a race that is normal while walking /proc). */
    public static Optional<ProcStat> read(long pid) {
        try {
            return Optional.of(
                    parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1)));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
