package io.sandboxd.daemon.code;

import io.sandboxd.daemon.process.OutputKind;
import io.sandboxd.daemon.process.OutputSink;

/**
 * The kernel process's own stdout and stderr: read and dropped. The code's output travels on
 * iopub (ipykernel also captures what its subprocesses write to fds 1 and 2); what is left here
 * is the kernel's start-up and log chatter, which must still be read so the kernel never blocks
 * on a full pipe.
 */
final class DiscardingSink implements OutputSink {
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
    public void onOutput(OutputKind kind, byte[] data, int length) {}

    @Override
    public void onExit(int exitCode) {}
}
