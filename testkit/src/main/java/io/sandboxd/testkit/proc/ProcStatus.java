package io.sandboxd.testkit.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What {@code /proc/PID/status} says about a process's threads, memory and signal dispositions.
 * Memory is in bytes; a zombie has no memory lines and reads as 0.
 *
 * @param rssBytes     {@code VmRSS}
 * @param peakRssBytes {@code VmHWM}, the largest RSS so far
 * @param anonRssBytes {@code RssAnon}, the private (anonymous) part of the RSS; the rest is
 *                     file-backed and shared through the page cache
 * @param sigIgnMask   {@code SigIgn}: bit N-1 set means signal N is ignored
 */
public record ProcStatus(
        String name, int threads, long rssBytes, long peakRssBytes, long anonRssBytes, long sigIgnMask) {

    /** True if the process ignores signal number {@code signal} (e.g. 2 for SIGINT). */
    public boolean ignores(int signal) {
        return (sigIgnMask >>> (signal - 1) & 1) == 1;
    }

    public static ProcStatus parse(String text) {
        String name = "";
        int threads = 0;
        long rss = 0;
        long hwm = 0;
        long anon = 0;
        long sigIgn = 0;
        for (String line : text.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String value = line.substring(colon + 1).trim();
            switch (line.substring(0, colon)) {
                case "Name" -> name = value;
                case "Threads" -> threads = Integer.parseInt(value);
                case "VmRSS" -> rss = kib(value);
                case "VmHWM" -> hwm = kib(value);
                case "RssAnon" -> anon = kib(value);
                case "SigIgn" -> sigIgn = Long.parseUnsignedLong(value, 16);
                default -> {}
            }
        }
        return new ProcStatus(name, threads, rss, hwm, anon, sigIgn);
    }

    /** Reads a process's status; empty if it has gone. */
    public static Optional<ProcStatus> read(long pid) {
        try {
            return Optional.of(parse(
                    Files.readString(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.ISO_8859_1)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** {@code "123 kB"} → bytes. */
    static long kib(String value) {
        int space = value.indexOf(' ');
        return Long.parseLong(space < 0 ? value : value.substring(0, space)) * 1024;
    }
}
