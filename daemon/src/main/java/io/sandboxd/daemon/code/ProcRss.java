package io.sandboxd.daemon.code;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A process's resident memory from {@code /proc/<pid>/status} (VmRSS). */
final class ProcRss {
    private ProcRss() {}

    /** @return bytes, or 0 when the process is gone or the line is missing */
    static long of(long pid) {
        try {
            return parse(Files.readString(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static long parse(String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("VmRSS:")) {
                String[] parts = line.substring(6).trim().split("\\s+");
                return Long.parseLong(parts[0]) * 1024;
            }
        }
        return 0;
    }
}
