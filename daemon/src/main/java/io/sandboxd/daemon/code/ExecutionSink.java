package io.sandboxd.daemon.code;

/**
 * Where an execution's outputs go: called on the kernel loop (by whichever thread holds its lock:
 * the loop's own or, for a task run at once, the caller's), in order, never concurrently;
 * {@link #finished} exactly once, last. Must not block.
 */
public interface ExecutionSink {
    void output(CodeOutput output);

    void finished(ExecutionOutcome outcome);
}
