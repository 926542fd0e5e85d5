package io.sandboxd.daemon.process.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * pty4j forks the JVM and execs the program in the child. Until that exec the child still has
 * the JVM's signal handlers installed, and they swallow a SIGINT or SIGTERM sent in that window
 * (nothing in the forked copy dispatches it). A PTY process is therefore handed out (and its id
 * sent in init) only once {@code /proc/<pid>/exe} no longer names this JVM's binary. Pipe-mode
 * children need no barrier: posix_spawn resets handlers to default before anything can arrive.
 */
final class ExecBarrier {
    private static final long MAX_WAIT_NANOS = 500_000_000L;
    private static final Path SELF_EXE = selfExe();

    private ExecBarrier() {}

    static void awaitExec(long pid) {
        if (SELF_EXE == null) {
            return;
        }
        Path exe = Path.of("/proc", Long.toString(pid), "exe");
        long end = System.nanoTime() + MAX_WAIT_NANOS;
        while (true) {
            try {
                if (!Files.readSymbolicLink(exe).equals(SELF_EXE)) {
                    return;
                }
            } catch (IOException | UnsupportedOperationException e) {
                return; // exited already, or /proc not readable: nothing to wait for
            }
            if (System.nanoTime() - end > 0) {
                return; // the program is this same java binary: no way to tell, carry on
            }
            LockSupport.parkNanos(100_000L);
        }
    }

    private static Path selfExe() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/exe"));
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }
}
