package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.stub.ServerCallStreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.daemon.fs.SandboxRoot;
import io.sandboxd.daemon.process.CommandResolver;
import io.sandboxd.daemon.process.DurableProcess;
import io.sandboxd.daemon.process.DurableProcesses;
import io.sandboxd.daemon.process.ProcessCore;
import io.sandboxd.daemon.process.ProcessRegistry;
import io.sandboxd.daemon.process.ProcessRequest;
import io.sandboxd.daemon.process.ProcessRuntime;
import io.sandboxd.daemon.process.journal.JournalStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How much of a replay one attach stream lets the transport hold: a real process's journal, the
 * real pump, and a stand-in for grpc's call that is ready while fewer bytes than its ready
 * threshold wait unsent (grpc's rule) and whose client takes nothing until the test says so.
 */
class AttachPumpTest {
    static final int OUTPUT = 4 << 20;

    @TempDir
    Path tmp;

    ProcessCore core;
    ScheduledExecutorService timer;

    @BeforeEach
    void setUp() throws Exception {
        core = new ProcessCore(
                new CommandResolver(
                        new SandboxRoot(
                                Files.createDirectories(tmp.resolve("root")).toRealPath()),
                        System.getenv()),
                new ProcessRegistry(64),
                new ProcessRuntime(AttachPump.CHUNK, new SimpleMeterRegistry()));
        timer = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterEach
    void tearDown() {
        timer.shutdownNow();
        core.terminateAll(TimeUnit.SECONDS.toNanos(1), System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        core.close();
    }

    /** An ended process whose whole output (4 MiB of stdout) is retained in its journal. */
    DurableProcess ended() throws Exception {
        DurableProcesses durable = core.enableDurable(
                new JournalStore(Files.createDirectories(tmp.resolve("state")), 1L << 30),
                new DurableProcesses.Settings(OUTPUT, OUTPUT, 1000, 60_000, 10));
        DurableProcess p = durable.start(
                new ProcessRequest(List.of("head", "-c", Integer.toString(OUTPUT), "/dev/zero"), Map.of(), null, null),
                "",
                true,
                0,
                OUTPUT);
        p.attachViewer();
        assertThat(p.exit().get(60, TimeUnit.SECONDS).stdoutWritten()).isEqualTo(OUTPUT);
        return p;
    }

    @Test
    void aStalledReplayHoldsAtMostTheQueueBoundPlusOneChunkAndGetsEveryByteOnceItReads() throws Exception {
        DurableProcess p = ended();
        Call call = new Call();
        AttachPump pump = new AttachPump(call, Runnable::run, timer, TimeUnit.HOURS.toNanos(1));
        pump.replaying(OUTPUT);
        pump.begin(p, 0, 0, null);

        // The client took nothing: the pump stopped once the unsent bytes reached the bound.
        assertThat(call.threshold).isEqualTo(AttachPump.QUEUED_BYTES);
        assertThat(call.unsent).isGreaterThanOrEqualTo(AttachPump.QUEUED_BYTES); // the pipe is kept full
        assertThat(call.unsent).isLessThan(AttachPump.QUEUED_BYTES + AttachPump.REPLAY_CHUNK + 64);
        assertThat(call.completed).isFalse();

        // Now it reads: every byte once, in order, in replay events (the large ones), then the exit.
        for (int rounds = 0; !call.completed && rounds < 1000; rounds++) {
            call.send();
        }
        assertThat(call.completed).isTrue();
        assertThat(call.stdout).isEqualTo(OUTPUT);
        assertThat(call.largestData).isEqualTo(AttachPump.REPLAY_CHUNK);
        assertThat(call.largestEvent).isLessThan(512 * 1024); // under half a 1 MiB G1 region with its array header
        assertThat(call.exits).isEqualTo(1);
    }

    @Test
    void anAttachLessThanTheQueueBoundBehindKeepsGrpcsThresholdAndEventsOfOneChunk() throws Exception {
        DurableProcess p = ended();
        Call call = new Call();
        AttachPump pump = new AttachPump(call, Runnable::run, timer, TimeUnit.HOURS.toNanos(1));
        pump.replaying(AttachPump.QUEUED_BYTES - 1);
        pump.begin(p, 0, 0, null);

        assertThat(call.threshold).isEqualTo(32 * 1024);
        for (int rounds = 0; !call.completed && rounds < 10_000; rounds++) {
            call.send();
        }
        assertThat(call.completed).isTrue();
        assertThat(call.stdout).isEqualTo(OUTPUT);
        assertThat(call.largestData).isEqualTo(AttachPump.CHUNK);
    }

    /** grpc's server call as the pump sees it: ready while fewer than {@code threshold} bytes are unsent. */
    static final class Call extends ServerCallStreamObserver<AttachEvent> {
        int threshold = 32 * 1024; // grpc's default
        long unsent;
        long stdout;
        int largestData;
        int largestEvent;
        int exits;
        boolean completed;
        Runnable onReady;

        /** The client took everything sent so far: the transport is empty and says so. */
        void send() {
            unsent = 0;
            onReady.run();
        }

        @Override
        public void setOnReadyThreshold(int numBytes) {
            threshold = numBytes;
        }

        @Override
        public boolean isReady() {
            return unsent < threshold;
        }

        @Override
        public void setOnReadyHandler(Runnable r) {
            onReady = r;
        }

        @Override
        public void onNext(AttachEvent e) {
            unsent += e.getSerializedSize();
            largestEvent = Math.max(largestEvent, e.getSerializedSize());
            if (e.hasOutput()) {
                assertThat(e.getOutput().getOffset()).isEqualTo(stdout);
                stdout += e.getOutput().getData().size();
                largestData = Math.max(largestData, e.getOutput().getData().size());
            } else if (e.hasExit()) {
                exits++;
            }
        }

        @Override
        public void onCompleted() {
            completed = true;
        }

        @Override
        public void onError(Throwable t) {
            throw new AssertionError("the pump failed the call", t);
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public void setOnCancelHandler(Runnable r) {}

        @Override
        public void setCompression(String compression) {}

        @Override
        public void disableAutoInboundFlowControl() {}

        @Override
        public void request(int count) {}

        @Override
        public void setMessageCompression(boolean enable) {}
    }
}
