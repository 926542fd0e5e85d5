package io.sandboxd.daemon.process;

import com.sun.jna.Pointer;

import java.util.concurrent.CompletableFuture;

/**
 * Delivers one output pipe of a process from the {@link IoLoop}. On each readable event it reads
 * what the pipe holds, up to one chunk (so bursts coalesce into few messages while a lone
 * {@code echo} still goes out at once), hands it to the sink, and re-arms only while the sink
 * has demand; otherwise it waits for the sink's demand callback, leaving the data in the pipe
 * so the writer blocks. All state is confined to the loop thread.
 */
final class PipeReader implements IoLoop.Handler, OutputSource {
    private final IoLoop loop;
    private final int fd;
    private final OutputKind kind;
    private final OutputSink sink;
    private final int chunkSize;
    private final ProcessMetrics metrics;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private boolean closed;
    private boolean awaitingDemand;
    private boolean graceExpired;
    private long postGraceBytes;

    PipeReader(IoLoop loop, int fd, OutputKind kind, OutputSink sink, int chunkSize, ProcessMetrics metrics) {
        this.loop = loop;
        this.fd = fd;
        this.kind = kind;
        this.sink = sink;
        this.chunkSize = Math.min(chunkSize, loop.readBufferSize());
        this.metrics = metrics;
    }

    void start() {
        loop.register(fd, this);
    }

    @Override
    public CompletableFuture<Void> done() {
        return done;
    }

    @Override
    public void onEvent() {
        if (!closed && !awaitingDemand) {
            readAvailable();
        }
    }

    @Override
    public void expireGrace() {
        loop.execute(() -> {
            if (closed) {
                return;
            }
            graceExpired = true;
            if (!awaitingDemand) {
                readAvailable(); // ends the source unless data is waiting
            }
        });
    }

    private void resume() {
        if (!closed) {
            awaitingDemand = false;
            readAvailable();
        }
    }

    private void readAvailable() {
        long buf = Pointer.nativeValue(loop.readBuffer());
        int len = 0;
        boolean eof = false;
        while (len < chunkSize) {
            long n = NativeIo.read(fd, buf + len, chunkSize - len);
            if (n > 0) {
                len += (int) n;
            } else if (n == 0) {
                eof = true;
                break;
            } else {
                int e = NativeIo.errno();
                if (e == NativeIo.EINTR) {
                    continue;
                }
                eof = e != NativeIo.EAGAIN; // EAGAIN: drained for now; anything else ends the source
                break;
            }
        }
        if (len > 0) {
            deliver(len);
            if (graceExpired) {
                postGraceBytes += len;
                eof |= postGraceBytes > OutputPump.POST_GRACE_BYTES + chunkSize;
            }
        }
        if (eof || (graceExpired && len == 0)) {
            finish();
        } else if (sink.isClosed() || sink.hasDemand()) {
            loop.rearm(fd);
        } else {
            awaitingDemand = true;
            sink.onDemand(() -> loop.execute(this::resume));
        }
    }

    private void deliver(int len) {
        if (sink.isClosed()) {
            return; // the consumer left: drain so the writer is not blocked until it is killed
        }
        byte[] data = new byte[len];
        loop.readBuffer().read(0, data, 0, len);
        metrics.bytes(kind, len);
        sink.onOutput(kind, data, len);
    }

    private void finish() {
        closed = true;
        loop.closeFd(fd);
        done.complete(null);
    }
}
