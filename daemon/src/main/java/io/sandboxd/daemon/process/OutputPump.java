package io.sandboxd.daemon.process;

import java.util.concurrent.CompletableFuture;

/**
 * Reads one output source of a process on its own thread (PTY mode) and pushes it to the sink as
 * it arrives (no polling).
 * Reads are coalesced only while the consumer has no demand, up to the chunk size. After the
 * leader exited and the grace passed, a pump that would have to wait for more data stops:
 * that is a background child holding the pipe (CONTRACT §1.3, §1.4).
 */
abstract class OutputPump implements Runnable, OutputSource {
    private static final int INITIAL_BUFFER = 4096;
    /**
     * What a pump may still deliver once the grace expired: everything the leader wrote is in the
     * pipe or terminal buffer by then, and a pipe holds at most 1 MiB (fs.pipe-max-size). Beyond
     * that, the data comes from a background child that keeps writing: it no longer holds the exit.
     */
    static final long POST_GRACE_BYTES = 1024 * 1024;

    private final OutputKind kind;
    private final OutputSink sink;
    private final int chunkSize;
    private final ProcessMetrics metrics;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    volatile boolean graceExpired;
    volatile boolean idle;

    OutputPump(OutputKind kind, OutputSink sink, int chunkSize, ProcessMetrics metrics) {
        this.kind = kind;
        this.sink = sink;
        this.chunkSize = chunkSize;
        this.metrics = metrics;
    }

    /** @return bytes read (&gt;0), or -1 at EOF or once stopped */
    abstract int read(byte[] buf, int off, int len) throws java.io.IOException;

    /** @return bytes readable now without blocking (0 if unknown) */
    abstract int available() throws java.io.IOException;

    /** Makes a read blocked on an idle source return -1 (or abandons it), then releases. */
    abstract void stop();

    abstract void release();

    @Override
    public final CompletableFuture<Void> done() {
        return done;
    }

    @Override
    public final void expireGrace() {
        graceExpired = true;
        if (idle) {
            stop();
            done.complete(null);
        }
    }

    @Override
    public void run() {
        pumpLoop();
    }

    final void pumpLoop() {
        byte[] buf = new byte[Math.min(INITIAL_BUFFER, chunkSize)];
        int len = 0;
        boolean discard = false;
        long postGrace = 0;
        try {
            while (!done.isDone()) {
                if (graceExpired && len == 0 && available() <= 0) {
                    break;
                }
                idle = true;
                if (graceExpired && len == 0 && available() <= 0) {
                    break;
                }
                int n = read(buf, len, buf.length - len);
                idle = false;
                if (n < 0) {
                    break;
                }
                len += n;
                if (graceExpired) {
                    postGrace += n;
                    if (postGrace > POST_GRACE_BYTES + chunkSize) {
                        break;
                    }
                }
                if (discard) {
                    len = 0;
                    continue;
                }
                if (len < buf.length && !sink.hasDemand() && available() > 0) {
                    continue;
                }
                if (!sink.awaitDemand()) {
                    discard = true;
                    len = 0;
                    continue;
                }
                if (done.isDone()) {
                    break;
                }
                metrics.bytes(kind, len);
                sink.onOutput(kind, buf, len); // lent: the next read reuses buf
                if (len == buf.length && buf.length < chunkSize) {
                    buf = new byte[Math.min(chunkSize, buf.length * 2)];
                }
                len = 0;
            }
            if (len > 0 && !discard && !done.isDone()) {
                metrics.bytes(kind, len);
                sink.onOutput(kind, buf, len);
            }
        } catch (java.io.IOException e) {
            // closed under us (grace or teardown): the output ends here
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            idle = false;
            release();
            done.complete(null);
        }
    }
}
