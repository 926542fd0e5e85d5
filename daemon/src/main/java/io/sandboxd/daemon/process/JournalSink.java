package io.sandboxd.daemon.process;

/**
 * The sink of a process started by the durable-process service: output goes to its journal and
 * nowhere else, so there is always demand; the process is never blocked by a reader (attachers
 * read the journal at their own pace). Runs on the I/O loop: each chunk is written to the journal
 * file before returning, as the loop lends it.
 */
final class JournalSink implements OutputSink {
    private final DurableProcess process;
    private final DurableProcesses owner;

    JournalSink(DurableProcess process, DurableProcesses owner) {
        this.process = process;
        this.owner = owner;
    }

    @Override
    public boolean hasDemand() {
        return true;
    }

    @Override
    public boolean isClosed() {
        return false;
    }

    @Override
    public void onDemand(Runnable callback) {
        callback.run();
    }

    @Override
    public void onOutput(OutputKind kind, byte[] data, int length) {
        process.stream(kind).append(data, 0, length);
        process.journal().wake();
    }

    @Override
    public boolean takesDirect() {
        return true;
    }

    /** Straight from the loop's native read buffer to the segment file: no copy through the heap. */
    @Override
    public void onOutput(OutputKind kind, java.nio.ByteBuffer direct) {
        process.stream(kind).append(direct);
        process.journal().wake();
    }

    @Override
    public void onExit(int exitCode) {
        owner.ended(process, exitCode);
    }
}
