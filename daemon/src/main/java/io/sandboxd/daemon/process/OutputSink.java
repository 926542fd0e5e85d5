package io.sandboxd.daemon.process;

/**
 * Where a process's output goes. Sources call it from the I/O loop (pipes and PTY masters);
 * an implementation serialises its consumer. Demand is the flow-control point: a source
 * stops reading while the consumer has none, which blocks the writing process, so a slow
 * consumer never makes the daemon buffer more than a chunk.
 */
public interface OutputSink {

    /** @return true when the consumer can take more now (non-blocking) */
    boolean hasDemand();

    /** @return true once the consumer went away for good; output is then discarded */
    boolean isClosed();

    /**
     * Runs {@code callback} once, on any thread, as soon as {@link #hasDemand()} or
     * {@link #isClosed()} holds — at once if it already does.
     */
    void onDemand(Runnable callback);

    /**
     * Delivers {@code data[0, length)}. The array is lent for the duration of the call only: the
     * source reuses it for its next read (one buffer per I/O loop instead of a new,
     * zeroed array per chunk), so a sink that keeps bytes copies them before returning.
     */
    void onOutput(OutputKind kind, byte[] data, int length);

    /** Called once, after every byte of output was handed to {@link #onOutput}. */
    void onExit(int exitCode);
}
