package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.AttachRequest;
import io.sandboxd.api.durable.v1alpha1.DurableProcessServiceGrpc;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.GapReason;
import io.sandboxd.api.durable.v1alpha1.ListRequest;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessRef;
import io.sandboxd.api.durable.v1alpha1.ProcessState;
import io.sandboxd.api.durable.v1alpha1.StartRequest;
import io.sandboxd.api.durable.v1alpha1.Stream;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.daemon.cli.Daemon;
import io.sandboxd.daemon.config.DurableConfig;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.metrics.Metrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal at its limits, with a real daemon and real processes: a state directory on a full
 * tmpfs, and many detached processes printing at full speed with nobody attached (the 60 s,
 * 100-process soak with heap and RSS is {@code bench durable --soak 60s}).
 */
class DurableJournalLimitsTest {
    @TempDir
    Path tmp;

    record Running(Daemon daemon, ManagedChannel channel) implements AutoCloseable {
        DurableProcessServiceGrpc.DurableProcessServiceBlockingStub stub() {
            return DurableProcessServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        }

        ProcessServiceGrpc.ProcessServiceBlockingStub v1() {
            return ProcessServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        }

        int startDetached(String... argv) {
            Context.CancellableContext ctx = Context.current().withCancellation();
            try {
                return ctx.call(() -> stub().start(StartRequest.newBuilder()
                                .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of(argv)))
                                .setDetach(true)
                                .build())
                        .next()
                        .getStarted()
                        .getProcessId());
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                ctx.cancel(null);
            }
        }

        @Override
        public void close() throws Exception {
            channel.shutdownNow();
            daemon.shutdown();
        }
    }

    Running start(Path state, long retention, long cap, Duration keepEnded) throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root")).toRealPath();
        Daemon daemon = new Daemon(
                TestConfig.forRoot(root),
                new DurableConfig(
                        state, retention, cap, keepEnded, 1000, Duration.ofMillis(500), Duration.ofSeconds(15)),
                new Metrics(),
                TestConfig.silentLog());
        daemon.start();
        return new Running(
                daemon,
                NettyChannelBuilder.forAddress("127.0.0.1", daemon.grpcPort())
                        .usePlaintext()
                        .maxInboundMessageSize(16 << 20)
                        .build());
    }

    static ProcessRef id(int id) {
        return ProcessRef.newBuilder().setProcessId(id).build();
    }

    /** Mounts a tmpfs of {@code size} at a new directory; skips the test where that is impossible (not root). */
    Path tmpfs(String size) throws Exception {
        Path mnt = Files.createDirectories(tmp.resolve("state"));
        Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", mnt.toString())
                .redirectErrorStream(true)
                .start();
        String why = new String(m.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(m.waitFor() == 0, "cannot mount a tmpfs here (needs root): " + why);
        return mnt;
    }

    static void unmount(Path mnt) throws Exception {
        new ProcessBuilder("umount", "-l", mnt.toString()).start().waitFor();
    }

    /** Bytes in use on the filesystem of {@code p} (statfs: one consistent snapshot, unlike a walk). */
    static long used(Path p) throws IOException {
        var store = Files.getFileStore(p);
        return store.getTotalSpace() - store.getUnallocatedSpace();
    }

    /** A 1 MiB tmpfs as the state directory fills up: the process runs on, attachers get the hole. */
    @Test
    void aFullDiskStopsTheJournalNeverTheProcessAndAttachersAreTold() throws Exception {
        Path mnt = tmpfs("1m");
        try (Running d = start(mnt, 8 << 20, 1L << 30, Duration.ofMinutes(5))) {
            int pid = d.startDetached("sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo done");
            ExitRecord exit = d.stub().wait(id(pid));
            assertThat(exit.getExitCode()).as("the process ran to its end").isZero();
            long written = 3_000_000 + 1 + 5;
            assertThat(exit.getStdoutWritten()).isEqualTo(written);
            long data = 0;
            long failed = 0;
            long offset = 0;
            Iterator<AttachEvent> it = d.stub()
                    .attach(AttachRequest.newBuilder().setProcess(id(pid)).build());
            for (AttachEvent e = it.next(); !e.hasExit(); e = it.next()) {
                if (e.hasOutput()) {
                    assertThat(e.getOutput().getOffset()).isEqualTo(offset);
                    byte[] b = e.getOutput().getData().toByteArray();
                    for (int i = 0; i < b.length; i++) {
                        long at = offset + i;
                        byte want = at < 3_000_000 ? (byte) 'a' : (byte) "\ndone\n".charAt((int) (at - 3_000_000));
                        if (b[i] != want) {
                            throw new AssertionError("byte " + at + " is " + b[i] + ", expected " + want);
                        }
                    }
                    data += b.length;
                    offset += b.length;
                } else if (e.hasGap()) {
                    assertThat(e.getGap().getOffset()).isEqualTo(offset);
                    assertThat(e.getGap().getStream()).isEqualTo(Stream.STREAM_STDOUT);
                    assertThat(e.getGap().getReason())
                            .as("bytes the disk refused")
                            .isEqualTo(GapReason.GAP_REASON_JOURNAL_WRITE_FAILED);
                    failed += e.getGap().getLength();
                    offset += e.getGap().getLength();
                }
            }
            assertThat(offset).as("every byte is data or inside a gap").isEqualTo(written);
            assertThat(data).as("what fit on the disk").isPositive().isLessThanOrEqualTo(1 << 20);
            assertThat(failed).as("what did not").isGreaterThanOrEqualTo(written - (1 << 20));
            // the daemon stays healthy: process.v1 and a new durable process still run
            var ex = d.v1().execute(ExecuteRequest.newBuilder()
                    .setConfig(ProcessConfig.newBuilder().addCommand("echo").addCommand("ok"))
                    .build());
            assertThat(ex.getExitCode()).isZero();
            assertThat(ex.getStdout().toStringUtf8()).isEqualTo("ok\n");
            int again = d.startDetached("echo", "still running");
            assertThat(d.stub().wait(id(again)).getExitCode()).isZero();
        } finally {
            unmount(mnt);
        }
    }

    /**
     * Detached processes printing at full speed with nobody attached: the journal stays within
     * --journal-total-cap, every process keeps running, the daemon answers; once they are killed
     * and forgotten their journals are gone.
     */
    @Test
    void fullSpeedWritersNobodyReadsStayWithinTheCap() throws Exception {
        Path state = tmpfs("64m");
        long cap = 4L << 20;
        int n = 20;
        try (Running d = start(state, 1 << 20, cap, Duration.ofSeconds(1))) {
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ids.add(d.startDetached("yes", "line of writer " + i));
            }
            long max = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            List<Long> getMillis = new ArrayList<>();
            while (System.nanoTime() < until) {
                max = Math.max(max, used(state));
                long t = System.nanoTime();
                d.stub().get(id(ids.get(0)));
                getMillis.add((System.nanoTime() - t) / 1_000_000);
                Thread.sleep(50);
            }
            // One append (at most 256 KiB) may be on disk before the cap evicts the oldest segment,
            // and tmpfs counts each process's current segment up to its next 4 KiB page.
            assertThat(max).as("journal bytes on disk").isLessThanOrEqualTo(cap + (256 << 10) + n * 4096L);
            long written = 0;
            for (ProcessInfo p : d.stub().list(ListRequest.getDefaultInstance()).getProcessesList()) {
                if (ids.contains(p.getProcessId())) {
                    assertThat(p.getState()).isEqualTo(ProcessState.PROCESS_STATE_RUNNING);
                    written += p.getStdoutWritten();
                }
            }
            assertThat(written).as("they wrote far more than the cap").isGreaterThan(4 * cap);
            assertThat(getMillis.stream().sorted().toList().get(getMillis.size() / 2))
                    .as("Get p50 ms while they write")
                    .isLessThan(1000L);
            for (int id : ids) {
                d.v1().sendSignal(SendSignalRequest.newBuilder()
                        .setProcessId(id)
                        .setSignal(Signal.SIGNAL_SIGKILL)
                        .build());
                d.stub().wait(id(id));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (bytesIn(state) > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(bytesIn(state))
                    .as("journals removed once their processes are forgotten")
                    .isZero();
        } finally {
            unmount(state);
        }
    }

    /**
     * Daemon shutdown as for process.v1 (runtime-contract §1.8): detached trees, a background
     * child included, are ended, and every attach stream gets its exit record and ends OK; the
     * journals are gone.
     */
    @Test
    void shutdownEndsDetachedTreesAndEveryAttacherGetsItsExit() throws Exception {
        Path state = Files.createDirectories(tmp.resolve("state"));
        Running d = start(state, 1 << 20, 1L << 30, Duration.ofMinutes(5));
        List<Long> sessions = new ArrayList<>();
        List<java.util.concurrent.CompletableFuture<List<AttachEvent>>> streams = new ArrayList<>();
        try {
            for (String cmd : List.of("echo $$; sleep 300 & sleep 300", "echo $$; trap '' TERM; sleep 300")) {
                int pid = d.startDetached("sh", "-c", cmd);
                var events = new java.util.concurrent.CompletableFuture<List<AttachEvent>>();
                var firstLine = new java.util.concurrent.CompletableFuture<Long>();
                List<AttachEvent> got = java.util.Collections.synchronizedList(new ArrayList<>());
                DurableProcessServiceGrpc.newStub(d.channel())
                        .attach(
                                AttachRequest.newBuilder().setProcess(id(pid)).build(),
                                new io.grpc.stub.StreamObserver<>() {
                                    @Override
                                    public void onNext(AttachEvent e) {
                                        got.add(e);
                                        if (e.hasOutput()) {
                                            firstLine.complete(Long.parseLong(e.getOutput()
                                                    .getData()
                                                    .toStringUtf8()
                                                    .strip()));
                                        }
                                    }

                                    @Override
                                    public void onError(Throwable t) {
                                        events.completeExceptionally(t);
                                    }

                                    @Override
                                    public void onCompleted() {
                                        events.complete(got);
                                    }
                                });
                sessions.add(firstLine.get(60, TimeUnit.SECONDS));
                streams.add(events);
            }
        } finally {
            d.daemon().shutdown();
        }
        for (var s : streams) {
            List<AttachEvent> events = s.get(30, TimeUnit.SECONDS);
            AttachEvent last = events.get(events.size() - 1);
            assertThat(last.hasExit()).as("the stream's last event is the exit").isTrue();
            assertThat(last.getExit().getKind())
                    .isEqualTo(io.sandboxd.api.durable.v1alpha1.ExitKind.EXIT_KIND_SIGNALED);
        }
        d.channel().shutdownNow();
        for (long sid : sessions) {
            io.sandboxd.testkit.Poll.until(Duration.ofSeconds(5), () -> io.sandboxd.testkit.proc.ProcessTable.read()
                    .liveInSession(sid)
                    .isEmpty());
            assertThat(io.sandboxd.testkit.proc.ProcessTable.read().liveInSession(sid))
                    .as("session %d", sid)
                    .isEmpty();
        }
        assertThat(bytesIn(state)).as("journals removed at shutdown").isZero();
    }

    static long bytesIn(Path dir) throws IOException {
        try (var s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(p -> {
                        try {
                            return Files.size(p);
                        } catch (IOException e) {
                            return 0; // removed meanwhile
                        }
                    })
                    .sum();
        } catch (java.io.UncheckedIOException e) {
            return bytesIn(dir); // a directory went while walking
        }
    }
}
