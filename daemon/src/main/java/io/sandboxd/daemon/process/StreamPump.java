package io.sandboxd.daemon.process;

import java.io.IOException;
import java.io.InputStream;

/** Pumps a pipe exposed by {@link Process} (pipe mode). */
final class StreamPump extends OutputPump {
    private final InputStream in;

    StreamPump(InputStream in, OutputKind kind, OutputSink sink, int chunkSize, ProcessMetrics metrics) {
        super(kind, sink, chunkSize, metrics);
        this.in = in;
    }

    /**
     * Holds the stream's monitor for the whole pump. The JDK, when the process exits, drains
     * whatever is available from a {@code Process} pipe into memory under this monitor
     * ({@code ProcessPipeInputStream.processExited}); with a background child that keeps writing
     * that drain has no bound. Holding the monitor makes the JDK wait until we are done (and
     * closed the stream), so all reading stays ours: flow-controlled and bounded.
     */
    @Override
    public void run() {
        synchronized (in) {
            pumpLoop();
        }
    }

    @Override
    int read(byte[] buf, int off, int len) throws IOException {
        return in.read(buf, off, len);
    }

    @Override
    int available() throws IOException {
        return in.available();
    }

    @Override
    void stop() {
        // A read blocked in the kernel is not woken by close(); the pump is abandoned instead
        // (done is completed by the caller) and its thread returns when the holder writes or exits.
        release();
    }

    @Override
    void release() {
        try {
            in.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
