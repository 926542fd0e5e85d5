package io.sandboxd.conformance.client;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Records every event of one Start stream with its arrival time, so checks can assert shape and timing. */
public final class StartStream implements ClientResponseObserver<StartRequest, StartResponse> {
    /** One received message, {@code nanos} after the call began. */
    public record Event(StartResponse message, long nanos) {
    }

    private final long began = System.nanoTime();
    private final List<Event> events = new ArrayList<>();
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile ClientCallStreamObserver<StartRequest> call;
    private volatile Status status;
    private volatile long endedNanos;

    @Override
    public void beforeStart(ClientCallStreamObserver<StartRequest> requestStream) {
        this.call = requestStream;
    }

    @Override
    public void onNext(StartResponse value) {
        synchronized (events) {
            events.add(new Event(value, System.nanoTime() - began));
            events.notifyAll();
        }
    }

    @Override
    public void onError(Throwable t) {
        status = Status.fromThrowable(t);
        end();
    }

    @Override
    public void onCompleted() {
        status = Status.OK;
        end();
    }

    private void end() {
        endedNanos = System.nanoTime() - began;
        synchronized (events) {
            events.notifyAll();
        }
        ended.countDown();
    }

    public void cancel() {
        call.cancel("conformance check cancels the stream", null);
    }

    public boolean isEnded() {
        return ended.getCount() == 0;
    }

    /** Waits for the stream's end; false on timeout. */
    public boolean awaitEnd(Duration timeout) throws InterruptedException {
        return ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits until the events received so far satisfy {@code condition}, or the stream ends, or timeout. */
    public boolean await(Predicate<StartStream> condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (events) {
            while (!condition.test(this)) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || isEnded()) {
                    return condition.test(this);
                }
                events.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
            return true;
        }
    }

    /** Waits for the first message; returns the process id if it is an init, else 0. */
    public int awaitInit(Duration timeout) throws InterruptedException {
        await(s -> !s.events().isEmpty(), timeout);
        List<Event> ev = events();
        if (!ev.isEmpty() && ev.get(0).message().hasInit()) {
            return ev.get(0).message().getInit().getProcessId();
        }
        return 0;
    }

    public boolean awaitStdoutContains(String text, Duration timeout) throws InterruptedException {
        return await(s -> s.stdoutText().contains(text), timeout);
    }

    public List<Event> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    public Status status() {
        return status;
    }

    public long endedNanos() {
        return endedNanos;
    }

    public byte[] stdout() {
        return collect(StartResponse.EventCase.STDOUT);
    }

    public byte[] stderr() {
        return collect(StartResponse.EventCase.STDERR);
    }

    public String stdoutText() {
        return new String(stdout(), java.nio.charset.StandardCharsets.UTF_8);
    }

    public String stderrText() {
        return new String(stderr(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private byte[] collect(StartResponse.EventCase which) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Event e : events()) {
            if (e.message().getEventCase() == which) {
                out.writeBytes((which == StartResponse.EventCase.STDOUT ? e.message().getStdout() : e.message().getStderr()).toByteArray());
            }
        }
        return out.toByteArray();
    }

    /** The exit event's code, or null when there is none. */
    public Integer exitCode() {
        for (Event e : events()) {
            if (e.message().hasExit()) {
                return e.message().getExit().getExitCode();
            }
        }
        return null;
    }

    public Event exitEvent() {
        for (Event e : events()) {
            if (e.message().hasExit()) {
                return e;
            }
        }
        return null;
    }

    /** A compact rendering of the whole stream for failure messages. */
    public String describe() {
        StringBuilder sb = new StringBuilder("[");
        List<Event> ev = events();
        int shown = 0;
        for (Event e : ev) {
            if (shown++ == 24) {
                sb.append(", ... ").append(ev.size() - 24).append(" more");
                break;
            }
            if (sb.length() > 1) {
                sb.append(", ");
            }
            StartResponse m = e.message();
            switch (m.getEventCase()) {
                case INIT -> sb.append("init{process_id=").append(m.getInit().getProcessId()).append('}');
                case EXIT -> sb.append("exit{exit_code=").append(m.getExit().getExitCode()).append('}');
                case STDOUT -> sb.append("stdout ").append(Bytes.excerpt(m.getStdout().toByteArray(), 40));
                case STDERR -> sb.append("stderr ").append(Bytes.excerpt(m.getStderr().toByteArray(), 40));
                default -> sb.append("(empty event)");
            }
        }
        sb.append(']');
        Status st = status;
        sb.append(st == null ? " (stream still open)" : " then status " + st.getCode()
                + (st.getDescription() == null ? "" : " \"" + st.getDescription() + "\""));
        return sb.toString();
    }
}
