package io.sandboxd.daemon.process;

import java.util.concurrent.CompletableFuture;

/** A running Execute: its result, and the way to end it early (deadline or cancel). */
public final class Execution {
    private final ManagedProcess process;
    private final CompletableFuture<ExecuteResult> result;

    Execution(ManagedProcess process, CompletableFuture<ExecuteResult> result) {
        this.process = process;
        this.result = result;
    }

    public CompletableFuture<ExecuteResult> result() {
        return result;
    }

    /** Kills the whole process group; the result still completes (after reaping). */
    public void cancel() {
        process.killTree();
    }
}
