package io.sandboxd.reliability.daemon;

import io.sandboxd.reliability.proc.DaemonObserver;
import io.sandboxd.reliability.proc.ProcStat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A daemon process started by {@link DaemonLauncher}. Closing it stops it and its leftovers. */
public final class RunningDaemon implements AutoCloseable {
    private final Process process;
    private final DaemonSpec spec;
    private final int grpcPort;
    private final int restPort;
    private final DaemonObserver observer;

    RunningDaemon(Process process, DaemonSpec spec, int grpcPort, int restPort) {
        this.process = process;
        this.spec = spec;
        this.grpcPort = grpcPort;
        this.restPort = restPort;
        this.observer = new DaemonObserver(process.pid());
    }

    public Process process() {
        return process;
    }

    public long pid() {
        return process.pid();
    }

    public DaemonSpec spec() {
        return spec;
    }

    public int grpcPort() {
        return grpcPort;
    }

    public int restPort() {
        return restPort;
    }

    public String restBase() {
        return "http://127.0.0.1:" + restPort;
    }

    public DaemonObserver observer() {
        return observer;
    }

    /** Graceful stop (SIGTERM), then SIGKILL after the timeout. @return the exit code */
    public int stop(Duration timeout) {
        // Descendants are read first: after the daemon is gone they are reparented and unfindable.
        List<ProcStat> children = safeDescendants();
        process.destroy();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        killAll(children);
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** {@code kill -9} of the daemon itself (its children are left as the crash would leave them). */
    public void killHard() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the daemon and every descendant, for test cleanup. */
    public void kill() {
        List<ProcStat> children = safeDescendants();
        killHard();
        killAll(children);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            stop(Duration.ofSeconds(15));
        }
    }

    /** The last {@code maxBytes} of the daemon's combined stdout/stderr log. */
    public String logTail(int maxBytes) {
        try (RandomAccessFile f = new RandomAccessFile(spec.logFile().toFile(), "r")) {
            long len = f.length();
            long from = Math.max(0, len - maxBytes);
            byte[] buf = new byte[(int) (len - from)];
            f.seek(from);
            f.readFully(buf);
            return new String(buf, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private List<ProcStat> safeDescendants() {
        try {
            return observer.descendants();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    private static void killAll(List<ProcStat> procs) {
        for (ProcStat p : procs) {
            ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
