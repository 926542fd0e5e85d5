package io.sandboxd.daemon.grpc;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test helper: which live (non-zombie) processes belong to a session, per /proc. */
final class ProcFs {
    private ProcFs() {
    }

    static List<Long> liveInSession(long sid) {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path p : dir) {
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    if (!f[0].equals("Z") && Long.parseLong(f[3]) == sid) {
                        out.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException ignored) {
                    // process vanished
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return out;
    }

    /** Polls until no live process of the session remains; @return what is left at the deadline */
    static List<Long> awaitSessionGone(long sid, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        List<Long> left = liveInSession(sid);
        while (!left.isEmpty() && System.currentTimeMillis() < end) {
            Thread.sleep(50);
            left = liveInSession(sid);
        }
        return left;
    }

    /** The SigIgn mask of a process (bit N-1 set = signal N ignored). */
    static long sigIgnMask(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("SigIgn:")) {
                return Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
            }
        }
        throw new IOException("no SigIgn line for " + pid);
    }
}
