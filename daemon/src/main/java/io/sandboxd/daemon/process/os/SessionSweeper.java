package io.sandboxd.daemon.process.os;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * Finds processes that belong to sessions the daemon created, via /proc. Used at shutdown for
 * background children that outlived their stream (their leader exited, they kept running), so
 * that nothing outlives the daemon. Session ids are the pids of our setsid'd leaders; a stranger
 * could only share one by calling setsid after such a pid was reused, which we accept.
 */
public final class SessionSweeper {
    private SessionSweeper() {}

    /** @return how many processes were sent SIGKILL */
    public static int killSessions(Set<Long> sessionIds) {
        if (sessionIds.isEmpty()) {
            return 0;
        }
        int killed = 0;
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(
                Path.of("/proc"), p -> isNumeric(p.getFileName().toString()))) {
            for (Path p : dir) {
                long pid = Long.parseLong(p.getFileName().toString());
                if (pid == self) {
                    continue;
                }
                long sid = sessionOf(p);
                if (sid > 1 && sessionIds.contains(sid)) {
                    if (NativeIo.killPid(pid, NativeIo.SIGKILL)) {
                        killed++;
                    }
                }
            }
        } catch (IOException e) {
            // /proc unavailable: nothing more we can do
        }
        return killed;
    }

    /** @return the subset of {@code sessionIds} that still has at least one process */
    public static Set<Long> liveSessions(Set<Long> sessionIds) {
        Set<Long> live = new java.util.HashSet<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(
                Path.of("/proc"), p -> isNumeric(p.getFileName().toString()))) {
            for (Path p : dir) {
                long sid = sessionOf(p);
                if (sessionIds.contains(sid)) {
                    live.add(sid);
                }
            }
        } catch (IOException e) {
            return sessionIds; // cannot tell: keep them all
        }
        return live;
    }

    /** Parses the session id (field 6) of /proc/PID/stat; the comm field may contain spaces. */
    static long sessionOf(Path procDir) {
        try {
            String stat = Files.readString(procDir.resolve("stat"));
            int close = stat.lastIndexOf(')');
            String[] f = stat.substring(close + 2).split(" ");
            // f[0]=state f[1]=ppid f[2]=pgrp f[3]=session
            return Long.parseLong(f[3]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static boolean isNumeric(String s) {
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
