package io.sandboxd.daemon.process;

/**
 * The sink of a {@code process.v1} Start process, journalled as well so that it can be listed
 * and attached as a second viewer: its own stream's sink keeps the flow control and the
 * semantics it has today; every chunk it is handed is also appended to the journal first.
 */
final class TeeSink implements OutputSink {
    private final OutputSink delegate;
    private final DurableProcess process;
    private final DurableProcesses owner;

    TeeSink(OutputSink delegate, DurableProcess process, DurableProcesses owner) {
        this.delegate = delegate;
        this.process = process;
        this.owner = owner;
    }

    @Override
    public boolean hasDemand() {
        return delegate.hasDemand();
    }

    @Override
    public boolean isClosed() {
        return delegate.isClosed();
    }

    @Override
    public void onDemand(Runnable callback) {
        delegate.onDemand(callback);
    }

    @Override
    public void onOutput(OutputKind kind, byte[] data, int length) {
        process.stream(kind).append(data, 0, length);
        process.journal().wake();
        delegate.onOutput(kind, data, length);
    }

    @Override
    public void onExit(int exitCode) {
        try {
            delegate.onExit(exitCode);
        } finally {
            owner.ended(process, exitCode);
        }
    }
}
