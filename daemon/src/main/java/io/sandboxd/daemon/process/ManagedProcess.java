package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.os.ExitWatcher;
import io.sandboxd.daemon.process.os.NativeIo;
import io.sandboxd.daemon.process.os.PipeSpawner;
import io.sandboxd.daemon.process.os.PtyTerminal;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one owner of a spawned process: it pumps its output to a sink, tracks stdin and exit, and
 * is the only place that signals it. The process runs in its own session, so its pid is its
 * process group id and every signal goes to the whole group. It runs on the shared
 * {@link ProcessRuntime} and reports its end to a {@link ProcessEndListener}.
 *
 * <p>Exit is delivered after all output: once the leader is reaped, the pumps read to EOF; if a
 * background child keeps the output open, they stop after {@link #PIPE_GRACE_MILLIS} of waiting
 * and the exit follows (runtime-contract §1.3).
 */
public final class ManagedProcess {
    static final long PIPE_GRACE_MILLIS = 2000;

    private final int id;
    private final long pid;
    private final PipeSpawner.Spawned pipes;
    private final PtyTerminal terminal;
    private final StdinChannel stdin;
    private final ProcessRuntime runtime;
    private final ProcessEndListener ends;
    private final CompletableFuture<Integer> leaderExit = new CompletableFuture<>();
    private final CompletableFuture<Integer> finished = new CompletableFuture<>();
    private final AtomicBoolean pumping = new AtomicBoolean();
    private volatile boolean leaderExited;
    /** Wraps the sink given to {@link #pump} (the journal of a Start process), or null. */
    private volatile java.util.function.UnaryOperator<OutputSink> tee;

    /** Pipe mode: the output pipes are read on the I/O loop, the exit comes from a pidfd there. */
    ManagedProcess(int id, PipeSpawner.Spawned pipes, ProcessRuntime runtime, ProcessEndListener ends) {
        this.id = id;
        this.runtime = runtime;
        this.ends = ends;
        this.pipes = pipes;
        this.terminal = null;
        this.pid = pipes.pid();
        this.stdin =
                pipes.stdin() >= 0 ? new PipeStdin(id, pipes.stdin(), runtime.blocking(), runtime.stdinBudget()) : null;
        ExitWatcher.watch(pid, runtime.loop(), runtime.blocking(), this::leaderExited);
    }

    /**
     * PTY mode: pty4j's process, which pty4j's reaper thread reaps. A pidfd on the I/O loop says
     * when it exited; only then does a pooled thread collect the code from pty4j (so no thread
     * waits while the process runs). The master is read on the I/O loop too.
     */
    ManagedProcess(int id, PtyTerminal terminal, ProcessRuntime runtime, ProcessEndListener ends) {
        this.id = id;
        this.runtime = runtime;
        this.ends = ends;
        this.pipes = null;
        this.terminal = terminal;
        this.pid = terminal.pid();
        this.stdin = new PtyStdin(id, terminal, runtime.blocking(), runtime.stdinBudget());
        Runnable collect = () -> runtime.blocking().execute(() -> {
            try {
                leaderExited(terminal.waitFor());
            } catch (InterruptedException e) {
                leaderExited(-1);
            }
        });
        if (!ExitWatcher.notifyExit(pid, runtime.loop(), collect)) {
            collect.run(); // no pidfd: a pooled thread waits for the whole run instead
        }
    }

    private void leaderExited(int code) {
        leaderExited = true;
        leaderExit.complete(code);
    }

    /** Daemon-assigned id (0 for processes that are not addressable, i.e. Execute). */
    public int id() {
        return id;
    }

    public long pid() {
        return pid;
    }

    /** Completes with the exit code after the sink received {@code onExit}. */
    public CompletableFuture<Integer> finished() {
        return finished;
    }

    /** Starts delivering output to {@code sink}; call exactly once. */
    public void pump(OutputSink sink) {
        java.util.function.UnaryOperator<OutputSink> t = tee;
        if (t != null) {
            tee = null;
            pump(t.apply(sink));
            return;
        }
        if (!pumping.compareAndSet(false, true)) {
            throw new IllegalStateException("already pumping");
        }
        List<OutputReader> sources = startReaders(sink);
        leaderExit.thenRun(() -> {
            if (terminal != null) {
                terminal.closeSlave();
            }
            if (sources.stream().allMatch(s -> s.done().isDone())) {
                return; // the usual case: output ended with the leader, no grace needed
            }
            runtime.timers()
                    .schedule(
                            () -> {
                                for (OutputReader s : sources) {
                                    if (!s.done().isDone()) {
                                        s.expireGrace();
                                    }
                                }
                            },
                            PIPE_GRACE_MILLIS,
                            TimeUnit.MILLISECONDS);
        });
        CompletableFuture<?>[] waits = new CompletableFuture<?>[sources.size() + 1];
        for (int i = 0; i < sources.size(); i++) {
            waits[i] = sources.get(i).done();
        }
        waits[sources.size()] = leaderExit;
        CompletableFuture.allOf(waits).whenComplete((v, err) -> finish(sink));
    }

    /** Starts reading the process's output on the runtime's I/O loop: its pipes, or its terminal. */
    private List<OutputReader> startReaders(OutputSink sink) {
        int chunk = runtime.chunkSize();
        if (terminal == null) {
            return List.of(
                    reader(pipes.stdout(), OutputKind.STDOUT, sink, chunk, true),
                    reader(pipes.stderr(), OutputKind.STDERR, sink, chunk, true));
        }
        try {
            // Read on the I/O loop like a pipe (no thread per terminal); stdin writes to the
            // same master wait out EAGAIN. A PTY delivers at most a few KiB per read, so it
            // keeps the small chunk whatever --stream-chunk-size says.
            NativeIo.setNonBlocking(terminal.masterFd());
            return List.of(reader(
                    terminal.masterFd(), OutputKind.STDOUT, sink, Math.min(chunk, LargeChunkBudget.BASE), false));
        } catch (IOException | RuntimeException e) {
            killTree();
            return List.of();
        }
    }

    /** A started reader of {@code fd} on the runtime's I/O loop. */
    private OutputReader reader(int fd, OutputKind kind, OutputSink sink, int chunk, boolean ownsFd) {
        OutputReader r = new OutputReader(runtime, fd, kind, sink, chunk, ownsFd);
        r.start();
        return r;
    }

    private void finish(OutputSink sink) {
        int code = leaderExit.getNow(-1);
        if (stdin != null) {
            stdin.close();
        } else if (terminal != null) {
            terminal.closeMaster();
        }
        runtime.metrics().exited(code);
        ends.exiting(this);
        try {
            sink.onExit(code);
        } finally {
            ends.ended(this);
            finished.complete(code);
        }
    }

    /** Output given to {@link #pump} goes through {@code wrap} first; call before pumping. */
    void tee(java.util.function.UnaryOperator<OutputSink> wrap) {
        tee = wrap;
    }

    /** SendSignal: to the group while the leader lives; afterwards an OK no-op (no pid reuse). */
    public void signal(ProcessSignal signal) {
        if (leaderExited) {
            return;
        }
        signalGroup(signal.number());
    }

    /** SIGTERM to the group (shutdown), unless everything already ended. */
    void terminate() {
        if (!finished.isDone()) {
            signalGroup(NativeIo.SIGTERM);
        }
    }

    /** SIGKILL to the group: cancel, deadline, shutdown. Covers children still holding output. */
    public void killTree() {
        if (!finished.isDone()) {
            signalGroup(NativeIo.SIGKILL);
        }
    }

    private void signalGroup(int signal) {
        try {
            if (!NativeIo.killGroup(pid, signal) && NativeIo.errno() == NativeIo.ESRCH && !leaderExited) {
                // Right after spawn the child may not have called setsid() yet, so its group does
                // not exist. It cannot have forked before that either: the leader alone is the tree.
                NativeIo.killPid(pid, signal);
            }
        } catch (LinkageError e) {
            // libc via JNA unavailable (e.g. a noexec temp dir): the JDK can still end the tree it
            // can see. Only a fallback: it misses children that already left the tree.
            if (signal == NativeIo.SIGKILL || signal == NativeIo.SIGTERM) {
                ProcessHandle.of(pid).ifPresent(h -> {
                    h.descendants().forEach(ProcessHandle::destroyForcibly);
                    h.destroyForcibly();
                });
            }
        }
    }

    public CompletableFuture<Void> writeStdin(byte[] data) {
        if (stdin == null) {
            return CompletableFuture.failedFuture(
                    new SandboxException(ErrorKind.FAILED_PRECONDITION, "process " + id + " has no stdin"));
        }
        if (leaderExited) {
            return CompletableFuture.failedFuture(
                    new SandboxException(ErrorKind.FAILED_PRECONDITION, "process " + id + " has exited"));
        }
        return stdin.write(data);
    }

    public CompletableFuture<Void> closeStdin() {
        if (stdin == null) {
            return CompletableFuture.failedFuture(
                    new SandboxException(ErrorKind.FAILED_PRECONDITION, "process " + id + " has no stdin"));
        }
        if (leaderExited) {
            return CompletableFuture.completedFuture(null);
        }
        return stdin.eof();
    }

    /**
     * ResizeTTY: a process without a terminal is FAILED_PRECONDITION whatever the size; then the
     * size is checked (INVALID_ARGUMENT), then whether the process still runs.
     */
    public void resize(long cols, long rows) throws SandboxException {
        if (terminal == null) {
            throw new SandboxException(
                    ErrorKind.FAILED_PRECONDITION, "failed to resize TTY: process " + id + " has no terminal");
        }
        TerminalSize size = TerminalSize.resize(cols, rows);
        if (leaderExited) {
            throw new SandboxException(
                    ErrorKind.FAILED_PRECONDITION, "failed to resize TTY: process " + id + " has exited");
        }
        try {
            terminal.resize(size.cols(), size.rows());
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.FAILED_PRECONDITION, "failed to resize TTY of process " + id);
        }
    }
}
