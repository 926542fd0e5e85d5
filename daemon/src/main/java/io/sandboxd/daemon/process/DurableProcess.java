package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.journal.ProcessJournal;
import io.sandboxd.daemon.process.journal.StreamJournal;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A process as the durable-process service sees it (issue 18): its journal, its exit record and
 * what List shows. Started through that service, or adopted from a {@code process.v1} Start (then
 * {@link #v1Start()}: its own stream still owns it, attachers are second viewers). Kept after its
 * end until {@link DurableProcesses} forgets it.
 */
public final class DurableProcess {
    /** Attachers of one process at once; beyond it RESOURCE_EXHAUSTED. */
    public static final int MAX_ATTACHERS = 64;

    /** How the process ended. */
    public record Exit(int code, boolean timedOut, long endMillis, long stdoutWritten, long stderrWritten) {
        /** 128+N is death by signal N (the daemon's convention, runtime-contract §1.3). */
        public int signal() {
            return code > 128 && code < 128 + 65 ? code - 128 : 0;
        }
    }

    public enum State {
        RUNNING,
        EXITED,
        KILLED,
        TIMED_OUT
    }

    private final int id;
    private final String tag;
    private final List<String> command;
    private final boolean pty;
    private final boolean v1Start;
    private final boolean detached;
    private final long startMillis;
    private final ManagedProcess process;
    private final ProcessJournal journal;
    private final CompletableFuture<Exit> exit = new CompletableFuture<>();
    private final AtomicInteger attachers = new AtomicInteger();
    volatile boolean timedOut;

    DurableProcess(
            ManagedProcess process,
            String tag,
            ProcessRequest request,
            boolean v1Start,
            boolean detached,
            ProcessJournal journal) {
        this.id = process.id();
        this.tag = tag == null ? "" : tag;
        this.command = request.command();
        this.pty = request.terminal() != null;
        this.v1Start = v1Start;
        this.detached = detached;
        this.startMillis = System.currentTimeMillis();
        this.process = process;
        this.journal = journal;
    }

    public int id() {
        return id;
    }

    public String tag() {
        return tag;
    }

    public List<String> command() {
        return command;
    }

    public boolean pty() {
        return pty;
    }

    public boolean v1Start() {
        return v1Start;
    }

    public boolean detached() {
        return detached;
    }

    public long startMillis() {
        return startMillis;
    }

    /** The OS pid, which is also the process group id (own session). */
    public long pid() {
        return process.pid();
    }

    public ProcessJournal journal() {
        return journal;
    }

    public StreamJournal stream(OutputKind kind) {
        return kind == OutputKind.STDOUT ? journal.stdout() : journal.stderr();
    }

    /** Completes once every byte of output is journalled and the process ended. */
    public CompletableFuture<Exit> exit() {
        return exit;
    }

    public State state() {
        Exit e = exit.getNow(null);
        if (e == null) {
            return State.RUNNING;
        }
        if (e.timedOut()) {
            return State.TIMED_OUT;
        }
        return e.signal() != 0 ? State.KILLED : State.EXITED;
    }

    /** The process tree is killed (SIGKILL to its group): a non-detached Start stream ended. */
    public void killTree() {
        process.killTree();
    }

    /**
     * One more attacher, until {@link #detachViewer()}. The journal records from now on (a
     * {@code process.v1} Start is journalled only once someone attached).
     *
     * @throws SandboxException RESOURCE_EXHAUSTED beyond {@link #MAX_ATTACHERS}
     */
    public void attachViewer() throws SandboxException {
        if (attachers.incrementAndGet() > MAX_ATTACHERS) {
            attachers.decrementAndGet();
            throw new SandboxException(
                    ErrorKind.RESOURCE_EXHAUSTED,
                    "too many attachers of process " + id + ": the limit is " + MAX_ATTACHERS + " per process");
        }
        journal.record();
    }

    public void detachViewer() {
        attachers.decrementAndGet();
    }

    void ended(int code) {
        journal.stdout().seal();
        journal.stderr().seal();
        exit.complete(new Exit(
                code,
                timedOut,
                System.currentTimeMillis(),
                journal.stdout().written(),
                journal.stderr().written()));
        journal.wake();
    }
}
