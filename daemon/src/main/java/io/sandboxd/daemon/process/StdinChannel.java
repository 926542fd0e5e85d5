package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The stdin of a Start process (runtime-contract §1.5). Writes and EOF run one at a time in request order
 * on a per-process serial executor, never on the caller's thread, so a child that does not read
 * blocks only its own queue; a caller gives up by cancelling the returned future (its deadline),
 * and a write that has not begun by then is skipped.
 */
abstract class StdinChannel {
    private final int processId;
    private final SerialExecutor serial;
    private final StdinBudget budget;
    /** Bytes handed to {@link #write} and not yet written or given up. */
    private final java.util.concurrent.atomic.AtomicLong queued = new java.util.concurrent.atomic.AtomicLong();

    private volatile boolean eofRequested;
    private volatile boolean closed;

    StdinChannel(int processId, Executor pool, StdinBudget budget) {
        this.processId = processId;
        this.serial = new SerialExecutor(pool);
        this.budget = budget;
    }

    /** Blocking write of all bytes. */
    abstract void writeFully(byte[] data) throws IOException;

    /** Pipe: close our end. PTY: send the terminal's EOF character. */
    abstract void sendEof() throws IOException;

    /** Releases the underlying fd (runs after every queued operation). */
    abstract void release();

    CompletableFuture<Void> write(byte[] data) {
        if (closed) {
            return failed("process " + processId + " has exited");
        }
        if (eofRequested) {
            return failed("stdin of process " + processId + " was closed by an earlier eof");
        }
        if (data.length == 0) {
            return CompletableFuture.completedFuture(null);
        }
        long n = data.length;
        synchronized (queued) {
            try {
                budget.take(processId, queued.get(), n);
            } catch (SandboxException e) {
                return CompletableFuture.failedFuture(e);
            }
            queued.addAndGet(n);
        }
        CompletableFuture<Void> result = submit(() -> writeFully(data));
        // written, failed or given up (deadline): the bytes no longer wait either way
        result.whenComplete((v, err) -> {
            queued.addAndGet(-n);
            budget.release(n);
        });
        return result;
    }

    CompletableFuture<Void> eof() {
        if (closed) {
            return CompletableFuture.completedFuture(null);
        }
        synchronized (this) {
            if (eofRequested) {
                return CompletableFuture.completedFuture(null);
            }
            eofRequested = true;
        }
        return submit(this::sendEof);
    }

    /** The process ended: later writes fail; the fd is released after queued operations. */
    void close() {
        closed = true;
        serial.execute(this::release);
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private CompletableFuture<Void> submit(IoAction action) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        serial.execute(() -> {
            if (result.isDone()) {
                return; // the caller gave up (deadline / cancel) before we began
            }
            if (closed) {
                result.completeExceptionally(
                        new SandboxException(ErrorKind.FAILED_PRECONDITION, "process " + processId + " has exited"));
                return;
            }
            try {
                action.run();
                result.complete(null);
            } catch (IOException e) {
                result.completeExceptionally(new SandboxException(
                        ErrorKind.FAILED_PRECONDITION,
                        "stdin of process " + processId + " is closed (the process stopped reading it)"));
            }
        });
        return result;
    }

    private static CompletableFuture<Void> failed(String message) {
        return CompletableFuture.failedFuture(new SandboxException(ErrorKind.FAILED_PRECONDITION, message));
    }
}
