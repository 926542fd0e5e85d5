package io.sandboxd.client;

import io.grpc.Metadata;
import io.grpc.Status;
import io.sandboxd.api.process.v1.StartResponse;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A {@link StartListener} that records a stream for tests and checks: every event with its
 * arrival time, stdout and stderr (or only their byte counts, {@link #countingOnly()}), the exit
 * code, the final status and trailers, and any breach of the stream's shape (an event before
 * init or after exit, init not first, a non-positive id, an event with nothing set, an OK end
 * without exit). Thread-safe; waits use its monitor.
 */
public final class StartRecorder implements StartListener {
    /** One received message, {@code nanos} after the recorder was made. */
    public record Event(StartResponse message, long nanos) {}

    private final long began = System.nanoTime();
    private final boolean keepEvents;
    private boolean keepOutput;
    private final List<Event> events = new ArrayList<>();
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final List<String> violations = new ArrayList<>();
    private long stdoutBytes;
    private long stderrBytes;
    private int count;
    private Integer processId;
    private Event exit;
    private Status status;
    private Metadata trailers = new Metadata();
    private long endedNanos = -1;

    private StartRecorder(boolean keepEvents, boolean keepOutput) {
        this.keepEvents = keepEvents;
        this.keepOutput = keepOutput;
    }

    /** Keeps every event and all output. */
    public StartRecorder() {
        this(true, true);
    }

    /** Keeps nothing but counts and the exit: for streams of any size. */
    public static StartRecorder countingOnly() {
        return new StartRecorder(false, false);
    }

    @Override
    public synchronized void onEvent(StartResponse m) {
        Event e = new Event(m, System.nanoTime() - began);
        count++;
        if (keepEvents) {
            events.add(e);
        }
        if (exit != null) {
            violations.add("event after exit: " + m.getEventCase());
        }
        switch (m.getEventCase()) {
            case INIT -> {
                if (count != 1) {
                    violations.add("init is event #" + count);
                }
                if (m.getInit().getProcessId() <= 0) {
                    violations.add("non-positive process id " + m.getInit().getProcessId());
                }
                if (processId == null) {
                    processId = m.getInit().getProcessId();
                }
            }
            case STDOUT -> {
                afterInit(m);
                stdoutBytes += m.getStdout().size();
                if (keepOutput) {
                    stdout.writeBytes(m.getStdout().toByteArray());
                }
            }
            case STDERR -> {
                afterInit(m);
                stderrBytes += m.getStderr().size();
                if (keepOutput) {
                    stderr.writeBytes(m.getStderr().toByteArray());
                }
            }
            case EXIT -> {
                afterInit(m);
                if (exit == null) {
                    exit = e;
                }
            }
            default -> violations.add("event #" + count + " has no event set");
        }
        notifyAll();
    }

    private void afterInit(StartResponse m) {
        if (processId == null) {
            violations.add(m.getEventCase() + " before init");
        }
    }

    @Override
    public synchronized void onEnd(Status s, Metadata t) {
        status = s;
        trailers = t;
        endedNanos = System.nanoTime() - began;
        if (s.isOk() && exit == null) {
            violations.add("stream ended OK without exit");
        }
        notifyAll();
    }

    /** Waits until {@code condition} holds or the stream has ended; @return whether it holds. */
    public synchronized boolean await(Predicate<StartRecorder> condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.test(this)) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || status != null) {
                return condition.test(this);
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return condition.test(this);
            }
        }
        return true;
    }

    public boolean awaitStdoutContains(String text, Duration timeout) {
        return await(r -> r.stdoutText().contains(text), timeout);
    }

    /** The init's process id, waiting up to {@code timeout}; empty if none came. */
    public OptionalInt awaitInit(Duration timeout) {
        await(r -> r.processId != null, timeout);
        synchronized (this) {
            return processId == null ? OptionalInt.empty() : OptionalInt.of(processId);
        }
    }

    public boolean awaitEnd(Duration timeout) {
        return await(r -> r.status != null, timeout);
    }

    public synchronized boolean isEnded() {
        return status != null;
    }

    /** The events so far (none with {@link #countingOnly()}). */
    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /** Messages received so far. */
    public synchronized int eventCount() {
        return count;
    }

    public synchronized byte[] stdout() {
        return stdout.toByteArray();
    }

    public synchronized byte[] stderr() {
        return stderr.toByteArray();
    }

    public synchronized String stdoutText() {
        return stdout.toString(StandardCharsets.UTF_8);
    }

    public synchronized String stderrText() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    /** Bytes of stdout received, kept or not. */
    public synchronized long stdoutBytes() {
        return stdoutBytes;
    }

    public synchronized long stderrBytes() {
        return stderrBytes;
    }

    /** From now on count output without keeping it (drops what was kept): for endless printers. */
    public synchronized void discardOutput() {
        keepOutput = false;
        stdout.reset();
        stderr.reset();
    }

    /** The exit code, or null when no exit event (yet). */
    public synchronized Integer exitCode() {
        return exit == null ? null : exit.message().getExit().getExitCode();
    }

    /** The exit event with its arrival time, or null. */
    public synchronized Event exitEvent() {
        return exit;
    }

    /** The final status, or null while the stream is open. */
    public synchronized Status status() {
        return status;
    }

    public synchronized Metadata trailers() {
        return trailers;
    }

    /** Nanoseconds from the recorder's creation to the end of the stream, -1 while open. */
    public synchronized long endedNanos() {
        return endedNanos;
    }

    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    /** The stream in one line for failure messages (first 24 events). */
    public synchronized String describe() {
        StringBuilder sb = new StringBuilder("[");
        int shown = 0;
        for (Event e : events) {
            if (shown++ == 24) {
                sb.append(", ... ").append(events.size() - 24).append(" more");
                break;
            }
            if (sb.length() > 1) {
                sb.append(", ");
            }
            StartResponse m = e.message();
            switch (m.getEventCase()) {
                case INIT ->
                    sb.append("init{process_id=")
                            .append(m.getInit().getProcessId())
                            .append('}');
                case EXIT ->
                    sb.append("exit{exit_code=")
                            .append(m.getExit().getExitCode())
                            .append('}');
                case STDOUT -> sb.append("stdout ").append(excerpt(m.getStdout()));
                case STDERR -> sb.append("stderr ").append(excerpt(m.getStderr()));
                default -> sb.append("(empty event)");
            }
        }
        if (!keepEvents) {
            sb.append(count)
                    .append(" events, ")
                    .append(stdoutBytes)
                    .append(" stdout bytes, exit ")
                    .append(exitCode());
        }
        sb.append(']');
        sb.append(
                status == null
                        ? " (stream still open)"
                        : " then status " + status.getCode()
                                + (status.getDescription() == null ? "" : " \"" + status.getDescription() + "\""));
        return sb.toString();
    }

    /** The first 40 bytes, escaped as protobuf's text format does, and the total when cut. */
    private static String excerpt(com.google.protobuf.ByteString b) {
        String head = '"' + com.google.protobuf.TextFormat.escapeBytes(b.substring(0, Math.min(b.size(), 40))) + '"';
        return b.size() > 40 ? head + "... (" + b.size() + " bytes)" : head;
    }
}
