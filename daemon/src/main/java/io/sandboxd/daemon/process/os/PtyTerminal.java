package io.sandboxd.daemon.process.os;

import com.pty4j.unix.Pty;
import com.pty4j.unix.UnixPtyProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A process on a pseudo-terminal, spawned through pty4j (the child is a session leader with the
 * terminal as its controlling tty, so pgid == pid). The window size is set on the master before
 * the spawn, so the program never sees 0x0 (pty4j itself sets it after the spawn, a race).
 * The daemon keeps its own slave fd open until the leader is reaped: then the master reports EIO
 * only after every byte the session wrote has been read.
 */
public final class PtyTerminal {
    private final Pty pty;
    private final UnixPtyProcess process;
    private final int masterFd;
    private int slaveFd;

    private PtyTerminal(Pty pty, UnixPtyProcess process, int slaveFd) {
        this.pty = pty;
        this.process = process;
        this.masterFd = pty.getMasterFD();
        this.slaveFd = slaveFd;
    }

    /**
     * @param argv        the arguments, {@code argv[0]} as the caller wrote it
     * @param environment every variable the child sees
     * @param cols        the window size, set before the program starts
     * @param as          who the program runs as: the caller switched this thread to it, and pty4j's
     *                    thread that forks the child is started from here (see {@link ChildCredentials})
     */
    public static PtyTerminal spawn(
            Path executable,
            List<String> argv,
            Map<String, String> environment,
            Path workingDirectory,
            int cols,
            int rows,
            ChildCredentials as)
            throws IOException {
        Pty pty = new Pty(false);
        int slave = -1;
        try {
            NativeIo.setWindowSize(pty.getMasterFD(), cols, rows);
            slave = NativeIo.open(pty.getSlaveName(), NativeIo.O_RDWR | NativeIo.O_NOCTTY | NativeIo.O_CLOEXEC);
            if (slave < 0) {
                throw new IOException("cannot open terminal: errno " + NativeIo.errno());
            }
            if (!as.inherits() && NativeIo.fchown(slave, as.uid(), -1) != 0) {
                // the child opens the terminal by name, as its own user (a login gives it the tty too)
                throw new IOException("cannot give the terminal to the user: errno " + NativeIo.errno());
            }
            List<String> cmd = new ArrayList<>(argv);
            cmd.set(0, executable.toString());
            String[] env = environment.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .toArray(String[]::new);
            UnixPtyProcess p =
                    new UnixPtyProcess(cmd.toArray(String[]::new), env, workingDirectory.toString(), pty, null, false);
            ExecBarrier.awaitExec(p.pid());
            return new PtyTerminal(pty, p, slave);
        } catch (IOException | RuntimeException | Error e) {
            if (slave >= 0) {
                NativeIo.close(slave);
            }
            try {
                pty.close();
            } catch (IOException ignored) {
                // best effort
            }
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    public long pid() {
        return process.pid();
    }

    public int masterFd() {
        return masterFd;
    }

    /** Blocks until the leader is reaped; @return its exit code, 128+N for death by signal N */
    public int waitFor() throws InterruptedException {
        return ExitCodes.normalize(process.waitFor());
    }

    public void resize(int cols, int rows) throws IOException {
        NativeIo.setWindowSize(masterFd, cols, rows);
    }

    public synchronized void closeSlave() {
        if (slaveFd >= 0) {
            NativeIo.close(slaveFd);
            slaveFd = -1;
        }
    }

    /** Called once the leader was reaped. */
    public void closeMaster() {
        closeSlave();
        awaitPty4jBreakRead();
        try {
            pty.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /**
     * pty4j's reaper thread, right after it wakes {@code waitFor()}, writes one NUL byte into the
     * Pty's internal wake pipe ({@code breakRead}) without holding any lock. Closing the Pty before
     * that write closes the pipe, and the late write then lands on whatever file reused that fd
     * number, e.g. the stdout pipe of a process being spawned that moment (seen as a stray leading
     * NUL in another Execute's stdout under mixed load). So wait, bounded, until the byte is in the
     * pipe: pty4j's own read path (which would consume it) is never used here.
     */
    private void awaitPty4jBreakRead() {
        int[] pipe = pty4jWakePipe(pty);
        if (pipe == null || pipe[0] < 0) {
            return;
        }
        int[] fds = {pipe[0], NativeIo.POLLIN};
        long end = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() - end < 0) {
            fds[1] = NativeIo.POLLIN;
            int r = NativeIo.poll(fds, 1, 100);
            if (r > 0 || (r < 0 && NativeIo.errno() != NativeIo.EINTR)) {
                return;
            }
        }
    }

    private static final java.lang.reflect.Field WAKE_PIPE = wakePipeField();

    private static java.lang.reflect.Field wakePipeField() {
        try {
            java.lang.reflect.Field f = Pty.class.getDeclaredField("myPipe");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // another pty4j layout: closing promptly is all we can do
        }
    }

    private static int[] pty4jWakePipe(Pty pty) {
        try {
            return WAKE_PIPE == null ? null : (int[]) WAKE_PIPE.get(pty);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
