package io.sandboxd.daemon.process;

import java.util.concurrent.CompletableFuture;

/** Collects Execute output into bounded head+tail buffers; always has demand. */
final class CapturingSink implements OutputSink {
    private final HeadTailBuffer stdout;
    private final HeadTailBuffer stderr;
    final CompletableFuture<ExecuteResult> result = new CompletableFuture<>();

    CapturingSink(int limitPerStream) {
        stdout = new HeadTailBuffer(limitPerStream);
        stderr = new HeadTailBuffer(limitPerStream);
    }

    @Override
    public boolean hasDemand() {
        return true;
    }

    @Override
    public boolean isClosed() {
        return result.isDone();
    }

    @Override
    public void onDemand(Runnable callback) {
        callback.run();
    }

    @Override
    public void onOutput(OutputKind kind, byte[] data, int length) {
        HeadTailBuffer b = kind == OutputKind.STDOUT ? stdout : stderr;
        synchronized (b) {
            if (!result.isDone()) {
                b.write(data, 0, length);
            }
        }
    }

    @Override
    public void onExit(int exitCode) {
        ExecuteResult r;
        synchronized (stdout) {
            synchronized (stderr) {
                r = new ExecuteResult(
                        exitCode, stdout.toByteArray(), stderr.toByteArray(), stdout.dropped(), stderr.dropped());
            }
        }
        result.complete(r);
    }
}
