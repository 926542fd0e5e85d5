package io.sandboxd.daemon.process;

import com.sun.jna.Pointer;
import io.sandboxd.daemon.process.os.IoLoop;
import io.sandboxd.daemon.process.os.NativeIo;
import java.util.concurrent.CompletableFuture;

/**
 * Delivers one output of a process — a pipe, or a PTY master — from the {@link IoLoop}. On each
 * readable event it reads what the descriptor holds, up to one chunk (so bursts coalesce into few
 * messages while a lone {@code echo} still goes out at once), hands it to the sink, and re-arms
 * only while the sink has demand; otherwise it waits for the sink's demand callback, leaving the
 * data in the kernel so the writer blocks. EOF, or EIO from a PTY master once every slave fd is
 * closed and the terminal's buffer is drained (the tail of the session's output comes before
 * it), ends the source. Chunks beyond 32 KiB draw on the shared {@link LargeChunkBudget}, and a
 * hot stream's pipe is enlarged ({@link PipeGrowth}) so such chunks fill in one wake-up.
 * All state is confined to the loop thread.
 */
final class OutputReader implements IoLoop.Handler {
    /**
     * What a source may still deliver once the grace expired: everything the leader wrote is in the
     * pipe or terminal buffer by then, and a pipe holds at most 1 MiB (fs.pipe-max-size). Beyond
     * that, the data comes from a background child that keeps writing: it no longer holds the exit.
     */
    static final long POST_GRACE_BYTES = 1024 * 1024;

    private final IoLoop loop;
    private final OutputBuffers buffers;
    private final int fd;
    private final OutputKind kind;
    private final OutputSink sink;
    private final int chunkSize;
    private final ProcessMetrics metrics;
    private final LargeChunkBudget budget;
    private final PipeGrowth growth;
    /** Pipes are ours to close; a PTY master belongs to its terminal, which outlives the reading. */
    private final boolean ownsFd;
    /** The sink takes the native read buffer itself (no heap copy). */
    private final boolean direct;

    private final CompletableFuture<Void> done = new CompletableFuture<>();
    /** Budget bytes pinned by the last chunk until the consumer shows demand again. */
    private long heldBudget;

    private long delivered;
    private boolean grown;
    private boolean closed;
    private boolean awaitingDemand;
    private boolean graceExpired;
    private long postGraceBytes;

    OutputReader(ProcessRuntime runtime, int fd, OutputKind kind, OutputSink sink, int chunkSize, boolean ownsFd) {
        this.loop = runtime.loop();
        this.buffers = runtime.outputBuffers();
        this.fd = fd;
        this.kind = kind;
        this.sink = sink;
        this.chunkSize = Math.min(chunkSize, buffers.readBufferSize());
        this.metrics = runtime.metrics();
        this.budget = runtime.chunkBudget();
        this.growth = runtime.pipeGrowth();
        this.ownsFd = ownsFd;
        this.direct = sink.takesDirect();
    }

    void start() {
        loop.register(fd, this);
    }

    /** Completes once the source delivered its last byte and released its descriptor. */
    CompletableFuture<Void> done() {
        return done;
    }

    @Override
    public void onEvent() {
        if (!closed && !awaitingDemand) {
            readAvailable();
        }
    }

    /**
     * The leader exited and the grace period passed: end as soon as nothing more is waiting
     * (what is left is held open by a background child, runtime-contract §1.3).
     */
    void expireGrace() {
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
        releaseBudget(); // only called with demand: the previous chunk left the transport's queue
        int limit = Math.min(chunkSize, LargeChunkBudget.BASE);
        if (chunkSize > limit) {
            heldBudget = budget.tryAcquire(chunkSize - limit);
            limit += (int) heldBudget;
        }
        long buf = Pointer.nativeValue(buffers.readBuffer());
        int len = 0;
        boolean eof = false;
        while (len < limit) {
            long n = NativeIo.read(fd, buf + len, limit - len);
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
        long used = Math.max(0, len - LargeChunkBudget.BASE);
        budget.release(heldBudget - used);
        heldBudget = used;
        if (len > 0) {
            deliver(len);
            delivered += len;
            if (!grown && delivered >= PipeGrowth.HOT_AFTER_BYTES && chunkSize > LargeChunkBudget.BASE) {
                grown = growth.tryGrow(fd);
            }
            if (graceExpired) {
                postGraceBytes += len;
                eof |= postGraceBytes > POST_GRACE_BYTES + chunkSize;
            }
        }
        if (eof || (graceExpired && len == 0)) {
            finish();
        } else if (sink.isClosed() || sink.hasDemand()) {
            releaseBudget();
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
        metrics.bytes(kind, len);
        if (direct) {
            sink.onOutput(kind, buffers.direct(len));
            return;
        }
        byte[] data = buffers.heapChunk(len);
        buffers.readBuffer().read(0, data, 0, len);
        sink.onOutput(kind, data, len);
    }

    private void releaseBudget() {
        budget.release(heldBudget);
        heldBudget = 0;
    }

    private void finish() {
        releaseBudget();
        if (grown) {
            growth.released();
            grown = false;
        }
        closed = true;
        if (ownsFd) {
            loop.closeFd(fd);
        } else {
            loop.unregister(fd);
        }
        done.complete(null);
    }
}
