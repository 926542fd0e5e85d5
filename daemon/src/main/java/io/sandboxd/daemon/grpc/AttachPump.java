package io.sandboxd.daemon.grpc;

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

    /**
     * Largest output event of a replay ({@link #replaying}): twice {@link #CHUNK} less one 4 KiB
     * page. Every event costs both ends a hand-off between threads (the daemon's reader and event
     * loop, the client's event loop and its executor) and a message's bookkeeping, which twice as
     * large events halve: bench durable, 1 GiB replays interleaved (load 10-11, 10 runs each),
     * 0.78 instead of 0.85 daemon and 0.60 instead of 0.74 client CPU s/GiB, 732 instead of 627
     * MB/s. The page less keeps a whole event (data plus ~20 bytes of framing, plus an array
     * header in a Java client that copies it into an array of its own) under 512 KiB: G1 handles
     * an object larger than half its region (1 MiB regions below a 2 GiB heap) as humongous, and
     * 1 MiB events made the bench's client slower than 256 KiB ones for that reason (1.11 instead
     * of 0.74 client CPU s/GiB).
     */
    static final int REPLAY_CHUNK = 2 * CHUNK - 4096;

    /**
     * Bytes of this stream's events the transport may hold unsent before the pump stops reading
     * (grpc's ready threshold) for an Attach that begins at least this far behind the journal's
     * end (a replay, {@link #replaying}). With grpc's default (32 KiB) every chunk waited until
     * the previous one was all but sent, so each cost a wake-up of the pump and of the event loop
     * and the socket sat idle while the pump read the next chunk. Two chunks keep the socket busy
     * while the pump reads; a replaying attacher holds at most this plus one replay event
     * ({@link #REPLAY_CHUNK}) of the daemon's memory however long it stalls (any other, at most
     * 32 KiB plus one chunk). A Start and an
     * Attach near the end (following a live process) keep the default: there a deeper queue sends
     * each append at once in small events (bench durable: 90-150 KiB instead of ~250 KiB per event,
     * about twice the daemon CPU per GiB of a durable Start), where waiting gathers full chunks.
     */
    static final int QUEUED_BYTES = 2 * CHUNK;

    private final ServerCallStreamObserver<AttachEvent> out;
    private final Executor executor;
    private final ScheduledExecutorService timer;
    private final long heartbeatNanos;
    /**
     * A caught-up attacher woken by an append in a burst (the previous append came less than
     * {@link #LINGER_NANOS} before) reads at once only when this much is waiting; smaller appends
     * wait up to {@link #LINGER_NANOS} for more. A process writing fast in small pieces (8 KiB
     * from {@code head}) would otherwise cost a thread wake-up, a journal read and a gRPC message
     * per piece: 10-37 KiB per event and twice the daemon CPU per GiB of a {@code process.v1}
     * Start, measured (bench durable). An append after a pause (a line now and then) is sent at
     * once, so live latency does not pay for the coalescing.
     */
    static final long COALESCE_BYTES = 64 * 1024;

    static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicInteger wip = new AtomicInteger();
    private final Runnable wake = this::onAppend;
    /** The drain found nothing more to send and waits for an append (or the exit, a heartbeat). */
    private final java.util.concurrent.atomic.AtomicBoolean caughtUp = new java.util.concurrent.atomic.AtomicBoolean();
    /** A linger timer is pending. */
    private final java.util.concurrent.atomic.AtomicBoolean lingering = new java.util.concurrent.atomic.AtomicBoolean();
    /** stdout + stderr offsets when the drain caught up (written before {@link #caughtUp} is set). */
    private volatile long caughtUpAt;
    /** When the last append came (the writer's thread; the exit's wake may come from another). */
    private volatile long lastAppendNanos = System.nanoTime() - LINGER_NANOS;

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
    /** Largest output event of this stream: {@link #CHUNK}, or {@link #REPLAY_CHUNK} for a replay. */
    private int chunk = CHUNK;

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

    /**
     * An Attach that begins {@code behind} bytes before the journal's end: from {@link
     * #QUEUED_BYTES} behind on, the transport may hold that much and events carry up to {@link
     * #REPLAY_CHUNK} (both stay so if the attacher catches up). Only during the service method:
     * grpc fixes the threshold when it returns.
     */
    void replaying(long behind) {
        if (behind >= QUEUED_BYTES) {
            out.setOnReadyThreshold(QUEUED_BYTES);
            chunk = REPLAY_CHUNK;
        }
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

    /**
     * An append (on the writer's thread): only a caught-up drain needs waking; one that is behind
     * is running, or waits for the transport's readiness, which wakes it.
     */
    private void onAppend() {
        long now = System.nanoTime();
        boolean burst = now - lastAppendNanos < LINGER_NANOS;
        lastAppendNanos = now;
        DurableProcess p = process;
        if (!caughtUp.get() || p == null) {
            return;
        }
        long waiting = p.stream(OutputKind.STDOUT).written()
                + p.stream(OutputKind.STDERR).written()
                - caughtUpAt;
        if (!burst || waiting >= COALESCE_BYTES) {
            if (caughtUp.compareAndSet(true, false)) {
                signal();
            }
        } else if (lingering.compareAndSet(false, true)) {
            try {
                timer.schedule(this::lingerOver, LINGER_NANOS, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                lingerOver(); // the daemon is stopping
            }
        }
    }

    private void lingerOver() {
        lingering.set(false);
        if (caughtUp.compareAndSet(true, false)) {
            signal();
        }
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
        caughtUp.set(false); // running: appends need not wake us until we are caught up again
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
                        // Caught up: from now on an append wakes us (onAppend), as do the exit
                        // and the heartbeat. One that came before the flag was set is seen here.
                        long at = stdoutOffset + stderrOffset;
                        caughtUpAt = at;
                        caughtUp.set(true);
                        if (p.stream(OutputKind.STDOUT).written()
                                                + p.stream(OutputKind.STDERR).written()
                                        == at
                                || !caughtUp.compareAndSet(true, false)) {
                            return;
                        }
                        continue;
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
        ReadBuffer buffer = ReadBuffer.ofThread();
        try {
            r = p.stream(kind)
                    .read(offset, buffer.target(chunk), kind == OutputKind.STDOUT ? stdoutCursor : stderrCursor);
        } catch (OffsetOutOfRangeException e) {
            throw new IllegalStateException(e); // offsets were checked and only grow with the journal
        }
        Stream stream = kind == OutputKind.STDOUT ? Stream.STREAM_STDOUT : Stream.STREAM_STDERR;
        switch (r.kind()) {
            case DATA -> {
                advance(kind, r.length());
                return AttachEvent.newBuilder()
                        .setOutput(Output.newBuilder()
                                .setStream(stream)
                                .setOffset(offset)
                                .setData(buffer.data(r.length())))
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
