package io.sandboxd.conformance.checks;

import io.grpc.Metadata;
import io.grpc.Status;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.Gap;
import io.sandboxd.api.durable.v1alpha1.Output;
import io.sandboxd.api.durable.v1alpha1.Stream;
import io.sandboxd.client.DurableListener;
import io.sandboxd.conformance.suite.Expect;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Records one durable Start or Attach stream for a check: the events in order, each stream's
 * bytes put together by offset (starting from the offsets the stream was asked for), the gaps,
 * the exit record and the final status, and whatever broke the rules on the way (an output event
 * not starting where the previous one of its stream ended, an event after the exit record).
 */
final class DurableRecorder implements DurableListener {
    private final List<AttachEvent> events = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final List<Gap> gaps = new ArrayList<>();
    private long stdoutNext;
    private long stderrNext;
    private int heartbeats;
    private ExitRecord exit;
    private Status status;

    DurableRecorder(long stdoutFrom, long stderrFrom) {
        this.stdoutNext = stdoutFrom;
        this.stderrNext = stderrFrom;
    }

    DurableRecorder() {
        this(0, 0);
    }

    @Override
    public synchronized void onEvent(AttachEvent e) {
        events.add(e);
        if (exit != null) {
            violations.add("event #" + events.size() + " (" + e.getEventCase() + ") after the exit record");
        }
        switch (e.getEventCase()) {
            case OUTPUT -> {
                Output o = e.getOutput();
                boolean out = o.getStream() == Stream.STREAM_STDOUT;
                if (!out && o.getStream() != Stream.STREAM_STDERR) {
                    violations.add("output event #" + events.size() + " has stream " + o.getStreamValue());
                    break;
                }
                long expected = out ? stdoutNext : stderrNext;
                if (o.getOffset() != expected) {
                    violations.add((out ? "stdout" : "stderr") + " output event #" + events.size() + " at offset "
                            + o.getOffset() + ", expected " + expected + " (where the previous one ended)");
                }
                (out ? stdout : stderr).writeBytes(o.getData().toByteArray());
                if (out) {
                    stdoutNext = o.getOffset() + o.getData().size();
                } else {
                    stderrNext = o.getOffset() + o.getData().size();
                }
            }
            case GAP -> {
                Gap g = e.getGap();
                boolean out = g.getStream() == Stream.STREAM_STDOUT;
                long expected = out ? stdoutNext : stderrNext;
                if (g.getOffset() != expected) {
                    violations.add(
                            "gap event #" + events.size() + " at offset " + g.getOffset() + ", expected " + expected);
                }
                gaps.add(g);
                if (out) {
                    stdoutNext = g.getOffset() + g.getLength();
                } else {
                    stderrNext = g.getOffset() + g.getLength();
                }
            }
            case HEARTBEAT -> heartbeats++;
            case EXIT -> exit = e.getExit();
            default -> {}
        }
        notifyAll();
    }

    @Override
    public synchronized void onEnd(Status s, Metadata trailers) {
        status = s;
        notifyAll();
    }

    /** Waits until {@code condition} holds; false on timeout. */
    synchronized boolean await(Predicate<DurableRecorder> condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.test(this)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    boolean awaitEnd(Duration timeout) throws InterruptedException {
        return await(r -> r.status != null, timeout);
    }

    boolean awaitStdout(String text, Duration timeout) throws InterruptedException {
        return await(r -> r.stdoutText().contains(text) || r.status != null, timeout)
                && stdoutText().contains(text);
    }

    synchronized List<AttachEvent> events() {
        return List.copyOf(events);
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    synchronized byte[] stdout() {
        return stdout.toByteArray();
    }

    synchronized byte[] stderr() {
        return stderr.toByteArray();
    }

    synchronized String stdoutText() {
        return stdout.toString(StandardCharsets.UTF_8);
    }

    synchronized List<Gap> gaps() {
        return List.copyOf(gaps);
    }

    /** The offset after the last stdout byte or gap seen. */
    synchronized long stdoutNext() {
        return stdoutNext;
    }

    synchronized long stderrNext() {
        return stderrNext;
    }

    synchronized int heartbeats() {
        return heartbeats;
    }

    synchronized ExitRecord exit() {
        return exit;
    }

    synchronized Status status() {
        return status;
    }

    synchronized int startedId() {
        return !events.isEmpty() && events.get(0).hasStarted()
                ? events.get(0).getStarted().getProcessId()
                : 0;
    }

    /** The stream for a failure message: events (output as excerpts), then the status. */
    synchronized String describe() {
        StringBuilder b = new StringBuilder("[");
        int shown = 0;
        for (AttachEvent e : events) {
            if (shown > 0) {
                b.append(", ");
            }
            if (++shown > 12) {
                b.append("... ").append(events.size() - 12).append(" more");
                break;
            }
            b.append(describe(e));
        }
        b.append("] then ");
        b.append(status == null ? "still open" : "status " + Expect.describe(status));
        if (!violations.isEmpty()) {
            b.append("; ").append(violations.get(0));
        }
        return b.toString();
    }

    static String describe(AttachEvent e) {
        return switch (e.getEventCase()) {
            case STARTED -> "started{process_id=" + e.getStarted().getProcessId() + "}";
            case OUTPUT ->
                (e.getOutput().getStream() == Stream.STREAM_STDOUT ? "stdout" : "stderr") + "@"
                        + e.getOutput().getOffset() + " "
                        + Expect.excerpt(e.getOutput().getData().toByteArray(), 40);
            case GAP ->
                "gap{" + e.getGap().getStream() + " @" + e.getGap().getOffset() + " +"
                        + e.getGap().getLength() + " " + e.getGap().getReason() + "}";
            case HEARTBEAT -> "heartbeat";
            case EXIT ->
                "exit{" + e.getExit().getKind() + " code=" + e.getExit().getExitCode() + " signal="
                        + e.getExit().getSignal() + " timed_out=" + e.getExit().getTimedOut() + "}";
            default -> "(no event set)";
        };
    }
}
