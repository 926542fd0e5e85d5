package io.sandboxd.daemon.grpc;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.stub.ServerCallStreamObserver;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.Gap;
import io.sandboxd.api.durable.v1alpha1.GapReason;
import io.sandboxd.api.durable.v1alpha1.Heartbeat;
import io.sandboxd.api.durable.v1alpha1.Output;
import io.sandboxd.api.durable.v1alpha1.Stream;
import io.sandboxd.daemon.process.DurableProcess;
import io.sandboxd.daemon.process.OutputKind;
import io.sandboxd.daemon.process.journal.JournalRead;
import io.sandboxd.daemon.process.journal.OffsetOutOfRangeException;
import io.sandboxd.daemon.process.journal.StreamJournal;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One attach stream: replays a process's journal from the client's offsets, follows it, then
 * sends the exit record and completes. Flow-controlled on its own: it reads the next chunk only
 * while the call is ready, so a stalled client just falls behind in the journal and never
 * stalls the process or other attachers. Drains run on a shared executor, one at a time per
 * stream (a work-in-progress counter); wake-ups come from appends, the exit, the transport's
 * readiness and the heartbeat timer.
 */
final class AttachPump {
    /** Largest output event: the default chunk of a process.v1 Start stream. */
    static final int CHUNK = io.sandboxd.daemon.config.DaemonConfig.DEFAULT_STREAM_CHUNK_SIZE;

    private final ServerCallStreamObserver<AttachEvent> out;
    private final Executor executor;
    private final ScheduledExecutorService timer;
    private final long heartbeatNanos;
    private final AtomicInteger wip = new AtomicInteger();
    private final Runnable wake = this::signal;
    private volatile DurableProcess process;
    private volatile boolean cancelled;
    private volatile boolean heartbeatDue;
    private volatile long lastSentNanos = System.nanoTime();
    private volatile Runnable onCancel;
    private ScheduledFuture<?> heartbeat;
    private AttachEvent first;
    private final StreamJournal.Cursor stdoutCursor = new StreamJournal.Cursor();
    private final StreamJournal.Cursor stderrCursor = new StreamJournal.Cursor();
    private long stdoutOffset;
    private long stderrOffset;
    private boolean stderrFirst;
    private boolean done;

    AttachPump(
            ServerCallStreamObserver<AttachEvent> out,
            Executor executor,
            ScheduledExecutorService timer,
            long heartbeatNanos) {
        this.out = out;
        this.executor = executor;
        this.timer = timer;
        this.heartbeatNanos = heartbeatNanos;
        out.setOnReadyHandler(this::signal);
        out.setOnCancelHandler(() -> {
            cancelled = true;
            Runnable r = onCancel;
            if (r != null) {
                r.run();
            }
            signal();
        });
    }

    /** Runs {@code r} when the client cancels (at once if it already did). */
    void onCancel(Runnable r) {
        onCancel = r;
        if (cancelled) {
            r.run();
        }
    }

    /** Starts streaming {@code p} from the given offsets, {@code first} (if not null) ahead of all. */
    void begin(DurableProcess p, long stdoutFrom, long stderrFrom, AttachEvent firstEvent) {
        this.stdoutOffset = stdoutFrom;
        this.stderrOffset = stderrFrom;
        this.first = firstEvent;
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), heartbeatNanos / 4);
        this.heartbeat = timer.scheduleAtFixedRate(
                () -> {
                    if (System.nanoTime() - lastSentNanos >= heartbeatNanos) {
                        heartbeatDue = true;
                        signal();
                    }
                },
                period,
                period,
                TimeUnit.NANOSECONDS);
        this.process = p; // publishes the fields above to the drain
        p.journal().watch(wake);
        p.exit().whenComplete((e, t) -> signal());
        signal();
    }

    private void signal() {
        if (wip.getAndIncrement() == 0) {
            try {
                executor.execute(this::run);
            } catch (RuntimeException e) {
                wip.set(0); // executor closed: the daemon is stopping
            }
        }
    }

    private void run() {
        int missed = 1;
        while (true) {
            try {
                drain();
            } catch (RuntimeException e) {
                finish();
                try {
                    out.onError(StatusMapper.toStatus(e));
                } catch (RuntimeException ignored) {
                    // the call is already closed
                }
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    private void drain() {
        DurableProcess p = process;
        if (p == null || done) {
            return;
        }
        if (cancelled) {
            finish();
            return;
        }
        while (out.isReady()) {
            AttachEvent e;
            if (first != null) {
                e = first;
                first = null;
            } else if (heartbeatDue) {
                heartbeatDue = false;
                e = AttachEvent.newBuilder()
                        .setHeartbeat(Heartbeat.newBuilder()
                                .setStdoutWritten(p.journal().stdout().written())
                                .setStderrWritten(p.journal().stderr().written()))
                        .build();
            } else {
                boolean exited = p.exit().isDone(); // before reading: every byte is journalled by then
                stderrFirst = !stderrFirst;
                e = stderrFirst ? next(p, OutputKind.STDERR) : next(p, OutputKind.STDOUT);
                if (e == null) {
                    e = stderrFirst ? next(p, OutputKind.STDOUT) : next(p, OutputKind.STDERR);
                }
                if (e == null) {
                    if (!exited) {
                        return; // caught up: an append, the exit or the heartbeat wakes us
                    }
                    out.onNext(AttachEvent.newBuilder()
                            .setExit(DurableServiceImpl.exitRecord(p, p.exit().join()))
                            .build());
                    out.onCompleted();
                    finish();
                    return;
                }
            }
            out.onNext(e);
            lastSentNanos = System.nanoTime();
        }
    }

    /** The next event of one stream at the client's offset, or null when caught up. */
    private AttachEvent next(DurableProcess p, OutputKind kind) {
        long offset = kind == OutputKind.STDOUT ? stdoutOffset : stderrOffset;
        JournalRead r;
        try {
            r = p.stream(kind).read(offset, CHUNK, kind == OutputKind.STDOUT ? stdoutCursor : stderrCursor);
        } catch (OffsetOutOfRangeException e) {
            throw new IllegalStateException(e); // offsets were checked and only grow with the journal
        }
        Stream stream = kind == OutputKind.STDOUT ? Stream.STREAM_STDOUT : Stream.STREAM_STDERR;
        switch (r.kind()) {
            case DATA -> {
                advance(kind, r.data().length);
                return AttachEvent.newBuilder()
                        .setOutput(Output.newBuilder()
                                .setStream(stream)
                                .setOffset(offset)
                                .setData(UnsafeByteOperations.unsafeWrap(r.data())))
                        .build();
            }
            case GAP -> {
                advance(kind, r.gapLength());
                return AttachEvent.newBuilder()
                        .setGap(Gap.newBuilder()
                                .setStream(stream)
                                .setOffset(offset)
                                .setLength(r.gapLength())
                                .setReason(reason(r.cause())))
                        .build();
            }
            default -> {
                return null;
            }
        }
    }

    private static GapReason reason(JournalRead.GapCause cause) {
        return switch (cause) {
            case WRITE_FAILED -> GapReason.GAP_REASON_JOURNAL_WRITE_FAILED;
            case NOT_RECORDED -> GapReason.GAP_REASON_NOT_RECORDED;
            default -> GapReason.GAP_REASON_RETENTION;
        };
    }

    private void advance(OutputKind kind, long n) {
        if (kind == OutputKind.STDOUT) {
            stdoutOffset += n;
        } else {
            stderrOffset += n;
        }
    }

    private void finish() {
        if (done) {
            return;
        }
        done = true;
        stdoutCursor.close();
        stderrCursor.close();
        DurableProcess p = process;
        if (heartbeat != null) {
            heartbeat.cancel(false);
        }
        if (p != null) {
            p.journal().unwatch(wake);
            p.detachViewer();
        }
    }
}
