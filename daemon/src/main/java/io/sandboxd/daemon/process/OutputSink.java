package io.sandboxd.daemon.process;

/**
 * Where a process's output goes. Output pumps call it from their own threads; an implementation
 * serialises its consumer. {@link #awaitDemand()} is the flow-control point: a pump blocks there,
 * which stops reading the pipe, which blocks the writing process, so a slow consumer never makes
 * the daemon buffer.
 */
public interface OutputSink {

    /** @return true when the consumer can take more now (non-blocking) */
    boolean hasDemand();

    /**
     * Blocks until the consumer can take more output.
     *
     * @return false when it never will (the consumer went away); the pump then discards
     */
    boolean awaitDemand() throws InterruptedException;

    /** Takes ownership of {@code data[0, length)}; the caller never touches the array again. */
    void onOutput(OutputKind kind, byte[] data, int length);

    /** Called once, after every byte of output was handed to {@link #onOutput}. */
    void onExit(int exitCode);
}
