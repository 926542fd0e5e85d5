package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds the stdin bytes that WriteStdin calls have handed over but a process has not read yet
 * (runtime-contract §1.5): at most {@link #PER_PROCESS_BYTES} per process, beyond one write into an
 * empty queue (one message of up to 4 MiB always goes through), and at most
 * {@link #DAEMON_BYTES} across all processes. The excess is refused at once with
 * RESOURCE_EXHAUSTED naming the limit, instead of queueing copies until the heap is gone: 60
 * concurrent 4 MiB writes to a process that never reads used to take 240 MiB.
 */
final class StdinBudget {
    static final long PER_PROCESS_BYTES = 4L * 1024 * 1024;
    static final long DAEMON_BYTES = 16L * 1024 * 1024;

    private final long daemonLimit;
    private final AtomicLong daemonQueued = new AtomicLong();

    StdinBudget() {
        this(DAEMON_BYTES);
    }

    StdinBudget(long daemonLimit) {
        this.daemonLimit = daemonLimit;
    }

    /**
     * Takes {@code n} bytes for a process whose queue already holds {@code processQueued}.
     *
     * @throws SandboxException RESOURCE_EXHAUSTED naming the limit that was reached
     */
    void take(int processId, long processQueued, long n) throws SandboxException {
        if (processQueued > 0 && processQueued + n > PER_PROCESS_BYTES) {
            throw new SandboxException(
                    ErrorKind.RESOURCE_EXHAUSTED,
                    "stdin of process " + processId + " already has "
                            + processQueued + " bytes waiting to be read: the limit is " + PER_PROCESS_BYTES
                            + " bytes per process (retry once the process reads its stdin)");
        }
        long total = daemonQueued.addAndGet(n);
        if (total > daemonLimit && total != n) {
            daemonQueued.addAndGet(-n);
            throw new SandboxException(
                    ErrorKind.RESOURCE_EXHAUSTED,
                    "stdin writes waiting to be read by processes" + " have reached the daemon-wide limit of "
                            + daemonLimit + " bytes (retry later)");
        }
    }

    void release(long n) {
        daemonQueued.addAndGet(-n);
    }

    long queued() {
        return daemonQueued.get();
    }
}
