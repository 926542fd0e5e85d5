package io.sandboxd.daemon.code;

/**
 * Where an execution's outputs go: called on the kernel loop thread, in order, never
 * concurrently; {@link #finished} exactly once, last. Must not block.
 */
public interface ExecutionSink {
    void output(CodeOutput output);

    void finished(ExecutionOutcome outcome);
}
