package io.sandboxd.bench;

import io.grpc.Metadata;
import io.grpc.Status;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.Output;
import io.sandboxd.api.durable.v1alpha1.StartRequest;
import io.sandboxd.client.DurableAttachment;
import io.sandboxd.client.DurableListener;
import io.sandboxd.client.DurableProcesses;
import io.sandboxd.client.SandboxdClient;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The durable-process streams the benchmark measures, through the client library in push mode:
 * counts output bytes and gaps, checks that every output event starts where the previous one of
 * its stream ended (each byte exactly once), and keeps the exit record.
 */
final class DurableClient {
    private DurableClient() {}

    /** What one Start or Attach stream delivered. */
    static final class Counted implements DurableListener {
        private final CountDownLatch ended = new CountDownLatch(1);
        private final long t0 = System.nanoTime();
        private final Consumer<Output> onOutput;
        volatile long stdout;
        volatile long outputEvents;
        volatile long stderr;
        volatile long gapBytes;
        volatile long firstOutputNanos = -1;
        volatile int startedId;
        volatile ExitRecord exit;
        volatile Status status;
        volatile String violation;

        /** @param onOutput shown every output event once counted (null: nothing) */
        Counted(Consumer<Output> onOutput) {
            this.onOutput = onOutput;
        }

        @Override
        public void onEvent(AttachEvent e) {
            switch (e.getEventCase()) {
                case STARTED -> startedId = e.getStarted().getProcessId();
                case OUTPUT -> {
                    long now = System.nanoTime();
                    if (firstOutputNanos < 0) {
                        firstOutputNanos = now;
                    }
                    boolean out = e.getOutput().getStreamValue() == 1;
                    long expected = out ? stdout : stderr;
                    if (e.getOutput().getOffset() != expected && violation == null) {
                        violation = "output at offset " + e.getOutput().getOffset() + ", expected " + expected;
                    }
                    int n = e.getOutput().getData().size();
                    outputEvents++;
                    if (out) {
                        stdout = expected + n;
                    } else {
                        stderr = expected + n;
                    }
                    if (onOutput != null) {
                        onOutput.accept(e.getOutput());
                    }
                }
                case GAP -> {
                    gapBytes += e.getGap().getLength();
                    if (e.getGap().getStreamValue() == 1) {
                        stdout += e.getGap().getLength();
                    } else {
                        stderr += e.getGap().getLength();
                    }
                }
                case EXIT -> exit = e.getExit();
                default -> {}
            }
        }

        @Override
        public void onEnd(Status s, Metadata trailers) {
            status = s;
            ended.countDown();
        }

        boolean await(Duration timeout) throws InterruptedException {
            return ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        /** Seconds from this listener's creation to the end of its stream. */
        double seconds() {
            return (System.nanoTime() - t0) / 1e9;
        }

        /** ms from this listener's creation to the first output event. */
        double firstOutputMs() {
            return (firstOutputNanos - t0) / 1e6;
        }

        /** Null when the stream ended OK after the exit record, exactly once per byte; else what went wrong. */
        String problem() {
            if (violation != null) {
                return violation;
            }
            if (status == null) {
                return "the stream did not end";
            }
            if (!status.isOk()) {
                return "the stream ended with " + status;
            }
            return exit == null ? "no exit record" : null;
        }
    }

    /** Starts {@code request} and streams it to a new {@link Counted}. */
    static Counted start(SandboxdClient c, StartRequest request) {
        Counted counted = new Counted(null);
        c.durable().startAttached(request, counted);
        return counted;
    }

    /** Attaches to {@code id} from offsets 0 with a new {@link Counted}; returns it and the stream. */
    static Counted attach(SandboxdClient c, int id, Consumer<Output> onOutput, DurableAttachment[] stream) {
        Counted counted = new Counted(onOutput);
        DurableAttachment a = c.durable().attach(DurableProcesses.byId(id), 0, 0, counted);
        if (stream != null) {
            stream[0] = a;
        }
        return counted;
    }
}
