package io.sandboxd.daemon.process;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.Executor;

final class PipeStdin extends StdinChannel {
    private final OutputStream out;

    PipeStdin(int processId, OutputStream out, Executor pool) {
        super(processId, pool);
        this.out = out;
    }

    @Override
    void writeFully(byte[] data) throws IOException {
        out.write(data);
        out.flush();
    }

    @Override
    void sendEof() throws IOException {
        out.close();
    }

    @Override
    void release() {
        try {
            out.close();
        } catch (IOException ignored) {
            // already closed or the child is gone
        }
    }
}
