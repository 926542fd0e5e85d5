package io.sandboxd.daemon.process;

import com.pty4j.unix.Pty;
import com.pty4j.unix.UnixPtyProcess;

import java.io.IOException;
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
final class PtyTerminal {
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

    static PtyTerminal spawn(LaunchPlan plan) throws IOException {
        Pty pty = new Pty(false);
        int slave = -1;
        try {
            Posix.setWindowSize(pty.getMasterFD(), plan.terminal());
            slave = Posix.c().open(pty.getSlaveName(), Posix.O_RDWR | Posix.O_NOCTTY | Posix.O_CLOEXEC);
            if (slave < 0) {
                throw new IOException("cannot open terminal: errno " + Posix.errno());
            }
            List<String> cmd = new ArrayList<>(plan.argv());
            cmd.set(0, plan.executable().toString());
            String[] env = plan.environment().entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
            UnixPtyProcess p = new UnixPtyProcess(cmd.toArray(String[]::new), env,
                    plan.workingDirectory().toString(), pty, null, false);
            ExecBarrier.awaitExec(p.pid());
            return new PtyTerminal(pty, p, slave);
        } catch (IOException | RuntimeException | Error e) {
            if (slave >= 0) {
                Posix.c().close(slave);
            }
            try {
                pty.close();
            } catch (IOException ignored) {
                // best effort
            }
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    long pid() {
        return process.pid();
    }

    int masterFd() {
        return masterFd;
    }

    /** Blocks until the leader is reaped; @return its exit code, 128+N for death by signal N */
    int waitFor() throws InterruptedException {
        return ExitCodes.normalize(process.waitFor());
    }

    void resize(TerminalSize size) throws IOException {
        Posix.setWindowSize(masterFd, size);
    }

    synchronized void closeSlave() {
        if (slaveFd >= 0) {
            Posix.c().close(slaveFd);
            slaveFd = -1;
        }
    }

    void closeMaster() {
        closeSlave();
        try {
            pty.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    static Map<String, String> describe() {
        return Map.of("mode", "pty");
    }
}
