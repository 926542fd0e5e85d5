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

    /**
     * True if this sink takes output straight from the loop's native read buffer
     * ({@link #onOutput(OutputKind, java.nio.ByteBuffer)}) instead of a heap copy: a sink that
     * only writes the bytes to a file (the journal) saves the copy to the heap and the JDK's copy
     * back to a direct buffer. Constant for a sink.
     */
    default boolean takesDirect() {
        return false;
    }

    /**
     * Delivers the bytes between the buffer's position and limit, from the loop's native read
     * buffer; only called when {@link #takesDirect()}. Lent for the duration of the call only,
     * like the array of {@link #onOutput(OutputKind, byte[], int)}.
     */
    default void onOutput(OutputKind kind, java.nio.ByteBuffer direct) {
        throw new UnsupportedOperationException("not a direct sink");
    }

    /** Called once, after every byte of output was handed to {@link #onOutput}. */
    void onExit(int exitCode);
}
