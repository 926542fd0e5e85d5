package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.AttachRequest;
import io.sandboxd.api.durable.v1alpha1.DurableProcessServiceGrpc;
import io.sandboxd.api.durable.v1alpha1.ExitKind;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.GapReason;
import io.sandboxd.api.durable.v1alpha1.ListRequest;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessRef;
import io.sandboxd.api.durable.v1alpha1.ProcessState;
import io.sandboxd.api.durable.v1alpha1.StartRequest;
import io.sandboxd.api.durable.v1alpha1.Stream;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.daemon.cli.Daemon;
import io.sandboxd.daemon.config.DurableConfig;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.metrics.Metrics;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Durable processes (issue 18) against a real daemon on loopback, a real client and real processes. */
class DurableProcessTest {
    @TempDir
    static Path tmp;

    static Daemon daemon;
    static ManagedChannel channel;
    static Path state;

    @BeforeAll
    static void up() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root")).toRealPath();
        state = Files.createDirectories(tmp.resolve("state"));
        daemon = new Daemon(
                TestConfig.forRoot(root),
                new DurableConfig(
                        state,
                        8L << 20,
                        1L << 30,
                        Duration.ofMinutes(5),
                        100,
                        Duration.ofMillis(500),
                        Duration.ofMillis(300)),
                new Metrics(),
                TestConfig.silentLog());
        daemon.start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", daemon.grpcPort())
                .usePlaintext()
                .maxInboundMessageSize(16 * 1024 * 1024)
                .build();
    }

    @AfterAll
    static void down() throws Exception {
        channel.shutdownNow();
        daemon.shutdown();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        try (var s = Files.list(state)) {
            assertThat(s.filter(p -> p.getFileName().toString().startsWith("journal-"))
                            .toList())
                    .as("journals removed at shutdown")
                    .isEmpty();
        }
    }

    static DurableProcessServiceGrpc.DurableProcessServiceBlockingStub stub() {
        return DurableProcessServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    static ProcessServiceGrpc.ProcessServiceBlockingStub v1() {
        return ProcessServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    static StartRequest.Builder req(String... argv) {
        return StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder().addAllCommand(List.of(argv)));
    }

    static ProcessRef id(int id) {
        return ProcessRef.newBuilder().setProcessId(id).build();
    }

    /** Starts detached and returns the id once Started arrived; the starting stream is then cancelled. */
    static int startDetached(StartRequest.Builder r) {
        Context.CancellableContext ctx = Context.current().withCancellation();
        try {
            return ctx.call(() ->
                    stub().start(r.setDetach(true).build()).next().getStarted().getProcessId());
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            ctx.cancel(null);
        }
    }

    /** What an attach from offsets 0 to the exit reads: stdout, stderr, the gaps, the exit. */
    static final class Seen {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        long outOffset;
        long errOffset;
        long gapBytes;
        final List<io.sandboxd.api.durable.v1alpha1.Gap> gaps = new java.util.ArrayList<>();
        int heartbeats;
        ExitRecord exit;

        /** @return false when the event was the exit */
        boolean take(AttachEvent e) {
            switch (e.getEventCase()) {
                case OUTPUT -> {
                    boolean isOut = e.getOutput().getStream() == Stream.STREAM_STDOUT;
                    assertThat(e.getOutput().getOffset())
                            .as("every byte exactly once")
                            .isEqualTo(isOut ? outOffset : errOffset);
                    byte[] b = e.getOutput().getData().toByteArray();
                    (isOut ? out : err).writeBytes(b);
                    if (isOut) {
                        outOffset += b.length;
                    } else {
                        errOffset += b.length;
                    }
                }
                case GAP -> {
                    boolean isOut = e.getGap().getStream() == Stream.STREAM_STDOUT;
                    assertThat(e.getGap().getOffset()).isEqualTo(isOut ? outOffset : errOffset);
                    gapBytes += e.getGap().getLength();
                    gaps.add(e.getGap());
                    if (isOut) {
                        outOffset += e.getGap().getLength();
                    } else {
                        errOffset += e.getGap().getLength();
                    }
                }
                case HEARTBEAT -> heartbeats++;
                case EXIT -> {
                    exit = e.getExit();
                    return false;
                }
                default -> {}
            }
            return true;
        }

        AttachRequest resume(int pid) {
            return AttachRequest.newBuilder()
                    .setProcess(id(pid))
                    .setStdoutOffset(outOffset)
                    .setStderrOffset(errOffset)
                    .build();
        }
    }

    static String numbered(int n, int errEvery) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            b.append("line ").append(i).append('\n');
        }
        return b.toString();
    }

    @Test
    void reattachingFromTheLastOffsetsAtRandomPointsReconstructsTheOutputByteExact() throws Exception {
        int n = 200_000;
        int pid = startDetached(
                req(
                        "awk",
                        "BEGIN { for (i = 1; i <= " + n + "; i++) { print \"line \" i; "
                                + "if (i % 1000 == 0) { print \"err \" i > \"/dev/stderr\"; fflush(); system(\"sleep 0.01\") } } }"));
        Seen seen = new Seen();
        Random rnd = new Random();
        int cuts = 0;
        boolean ended = false;
        while (!ended) {
            int stopAfter = cuts < 6 ? 1 + rnd.nextInt(40) : Integer.MAX_VALUE;
            Context.CancellableContext ctx = Context.current().withCancellation();
            Context prev = ctx.attach();
            try {
                Iterator<AttachEvent> it = stub().attach(seen.resume(pid));
                int got = 0;
                while (it.hasNext()) {
                    if (!seen.take(it.next())) {
                        ended = true;
                        break;
                    }
                    if (++got >= stopAfter) {
                        cuts++;
                        break; // the client goes away mid-stream
                    }
                }
            } finally {
                ctx.detach(prev);
                ctx.cancel(null);
            }
        }
        assertThat(cuts).isGreaterThanOrEqualTo(5);
        assertThat(seen.gapBytes).isZero();
        assertThat(seen.out.toString(StandardCharsets.US_ASCII)).isEqualTo(numbered(n, 0));
        StringBuilder err = new StringBuilder();
        for (int i = 1000; i <= n; i += 1000) {
            err.append("err ").append(i).append('\n');
        }
        assertThat(seen.err.toString(StandardCharsets.US_ASCII)).isEqualTo(err.toString());
        assertThat(seen.exit.getKind()).isEqualTo(ExitKind.EXIT_KIND_EXITED);
        assertThat(seen.exit.getExitCode()).isZero();
        assertThat(seen.exit.getStdoutWritten()).isEqualTo(seen.out.size());
    }

    @Test
    void anOffsetOlderThanTheRetentionBoundGetsOneExactGapThenTheRest() throws Exception {
        int pid = startDetached(req("seq", "1", "200000").setRetentionBytes(64 * 1024));
        ExitRecord exit = stub().wait(id(pid));
        byte[] all = seqBytes(200_000);
        assertThat(exit.getStdoutWritten()).isEqualTo(all.length);
        Seen seen = new Seen();
        Iterator<AttachEvent> it = stub().attach(seen.resume(pid));
        AttachEvent first = it.next();
        assertThat(first.hasGap()).isTrue();
        assertThat(first.getGap().getOffset()).isZero();
        assertThat(first.getGap().getReason()).isEqualTo(GapReason.GAP_REASON_RETENTION);
        long dropped = first.getGap().getLength();
        assertThat(all.length - dropped).isBetween(64L * 1024 - 8 * 1024, 64L * 1024);
        seen.take(first);
        while (seen.take(it.next())) {}
        assertThat(seen.gapBytes).isEqualTo(dropped);
        assertThat(seen.out.toByteArray()).isEqualTo(java.util.Arrays.copyOfRange(all, (int) dropped, all.length));
        // from an offset inside the retained range: no gap at all
        Seen tail = new Seen();
        tail.outOffset = all.length - 100;
        it = stub().attach(tail.resume(pid));
        while (tail.take(it.next())) {}
        assertThat(tail.gapBytes).isZero();
        assertThat(tail.out.toByteArray()).isEqualTo(java.util.Arrays.copyOfRange(all, all.length - 100, all.length));
    }

    static byte[] seqBytes(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            b.append(i).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void tagsAreUniqueAmongLiveProcessesAndIdsWorkWithProcessV1() throws Exception {
        int pid = startDetached(req("sh", "-c", "read x; echo got $x; sleep 30").setTag("build"));
        assertThatThrownBy(
                        () -> stub().start(req("true").setTag("build").build()).next())
                .isInstanceOf(StatusRuntimeException.class)
                .satisfies(
                        e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
                                .isEqualTo(Status.Code.ALREADY_EXISTS))
                .hasMessageContaining("build");
        ProcessInfo info = stub().get(ProcessRef.newBuilder().setTag("build").build());
        assertThat(info.getProcessId()).isEqualTo(pid);
        assertThat(info.getState()).isEqualTo(ProcessState.PROCESS_STATE_RUNNING);
        assertThat(info.getPid()).isPositive();
        assertThat(stub().list(ListRequest.getDefaultInstance()).getProcessesList())
                .anySatisfy(p -> assertThat(p.getProcessId()).isEqualTo(pid));
        // one id space: process.v1 WriteStdin and SendSignal reach it
        v1().writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid)
                .setInput(ByteString.copyFromUtf8("abc\n"))
                .build());
        Seen seen = new Seen();
        Iterator<AttachEvent> it = stub().attach(AttachRequest.newBuilder()
                .setProcess(ProcessRef.newBuilder().setTag("build"))
                .build());
        while (seen.out.size() < 8) {
            seen.take(it.next());
        }
        assertThat(seen.out.toString(StandardCharsets.US_ASCII)).isEqualTo("got abc\n");
        v1().sendSignal(SendSignalRequest.newBuilder()
                .setProcessId(pid)
                .setSignal(Signal.SIGNAL_SIGKILL)
                .build());
        while (seen.take(it.next())) {}
        assertThat(seen.exit.getKind()).isEqualTo(ExitKind.EXIT_KIND_SIGNALED);
        assertThat(seen.exit.getSignal()).isEqualTo(9);
        assertThat(stub().get(id(pid)).getState()).isEqualTo(ProcessState.PROCESS_STATE_KILLED);
        // the tag is free again once its process ended
        int again = startDetached(req("true").setTag("build"));
        assertThat(stub().wait(id(again)).getExitCode()).isZero();
    }

    @Test
    void unknownIdsAndTagsAreNotFound() {
        for (Runnable call : List.<Runnable>of(
                () -> stub().attach(AttachRequest.newBuilder()
                                .setProcess(id(987654))
                                .build())
                        .next(),
                () -> stub().get(ProcessRef.newBuilder().setTag("no-such-tag").build()),
                () -> stub().wait(id(987654)))) {
            assertThatThrownBy(call::run)
                    .isInstanceOf(StatusRuntimeException.class)
                    .satisfies(e -> assertThat(
                                    ((StatusRuntimeException) e).getStatus().getCode())
                            .isEqualTo(Status.Code.NOT_FOUND));
        }
        assertThatThrownBy(
                        () -> stub().attach(AttachRequest.getDefaultInstance()).next())
                .satisfies(
                        e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
                                .isEqualTo(Status.Code.INVALID_ARGUMENT));
    }

    @Test
    void offsetsBeyondWhatWasWrittenAreOutOfRange() {
        int pid = startDetached(req("sh", "-c", "printf hello; printf E >&2"));
        stub().wait(id(pid));
        assertThatThrownBy(() -> stub().attach(AttachRequest.newBuilder()
                                .setProcess(id(pid))
                                .setStdoutOffset(6)
                                .build())
                        .next())
                .satisfies(
                        e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
                                .isEqualTo(Status.Code.OUT_OF_RANGE))
                .hasMessageContaining("stdout_offset 6")
                .hasMessageContaining("5 bytes");
        assertThatThrownBy(() -> stub().attach(AttachRequest.newBuilder()
                                .setProcess(id(pid))
                                .setStderrOffset(-1L)
                                .build())
                        .next())
                .satisfies(
                        e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
                                .isEqualTo(Status.Code.OUT_OF_RANGE));
        Seen s = new Seen();
        s.outOffset = 2;
        s.errOffset = 1;
        Iterator<AttachEvent> it = stub().attach(s.resume(pid));
        while (s.take(it.next())) {}
        assertThat(s.out.toString(StandardCharsets.US_ASCII)).isEqualTo("llo");
        assertThat(s.err.size()).isZero();
        assertThat(it.hasNext()).isFalse();
    }

    @Test
    void aServerSideTimeoutEndsTheWholeTreeAndSaysTimedOut() throws Exception {
        // The shell and its child ignore SIGTERM: only the SIGKILL after the grace ends them.
        int pid = startDetached(
                req("sh", "-c", "trap '' TERM; sleep 300 & echo $!; wait").setTimeoutMillis(300));
        Seen seen = new Seen();
        Iterator<AttachEvent> it = stub().attach(seen.resume(pid));
        while (seen.take(it.next())) {}
        assertThat(seen.exit.getKind()).isEqualTo(ExitKind.EXIT_KIND_TIMED_OUT);
        assertThat(seen.exit.getTimedOut()).isTrue();
        long child = Long.parseLong(seen.out.toString(StandardCharsets.US_ASCII).trim());
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        assertThat(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false))
                .as("child gone")
                .isFalse();
        assertThat(stub().get(id(pid)).getState()).isEqualTo(ProcessState.PROCESS_STATE_TIMED_OUT);
    }

    @Test
    void aStalledAttacherStallsNeitherTheProcessNorAFastAttacher() throws Exception {
        int pid = startDetached(req("sh", "-c", "sleep 0.3; head -c 6000000 /dev/zero | tr '\\0' x"));
        // slow: takes one event, then stalls
        CompletableFuture<Void> slowDone = new CompletableFuture<>();
        Seen slow = new Seen();
        ClientCallStreamObserver<?>[] slowCall = new ClientCallStreamObserver<?>[1];
        DurableProcessServiceGrpc.newStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .attach(
                        AttachRequest.newBuilder().setProcess(id(pid)).build(),
                        new ClientResponseObserver<AttachRequest, AttachEvent>() {
                            @Override
                            public void beforeStart(ClientCallStreamObserver<AttachRequest> r) {
                                slowCall[0] = r;
                                r.disableAutoRequestWithInitial(1);
                            }

                            @Override
                            public void onNext(AttachEvent e) {
                                synchronized (slow) {
                                    slow.take(e);
                                }
                            }

                            @Override
                            public void onError(Throwable t) {
                                slowDone.completeExceptionally(t);
                            }

                            @Override
                            public void onCompleted() {
                                slowDone.complete(null);
                            }
                        });
        Seen fast = new Seen();
        Iterator<AttachEvent> it = stub().attach(fast.resume(pid));
        while (fast.take(it.next())) {}
        assertThat(fast.out.size()).isEqualTo(6_000_000);
        assertThat(stub().wait(id(pid)).getExitCode()).isZero(); // the process ran to its end
        synchronized (slow) {
            assertThat(slow.exit).isNull();
            assertThat(slow.out.size()).isLessThan(6_000_000);
        }
        slowCall[0].request(Integer.MAX_VALUE);
        slowDone.get(60, TimeUnit.SECONDS);
        synchronized (slow) {
            assertThat(slow.out.toByteArray()).isEqualTo(fast.out.toByteArray());
            assertThat(slow.exit).isNotNull();
        }
    }

    @Test
    void withoutDetachTheEndOfTheStartStreamKillsTheTreeWithDetachItRunsOn() throws Exception {
        Context.CancellableContext ctx = Context.current().withCancellation();
        int attached = ctx.call(() ->
                stub().start(req("sleep", "30").build()).next().getStarted().getProcessId());
        ctx.cancel(null);
        ExitRecord killed = stub().wait(id(attached));
        assertThat(killed.getKind()).isEqualTo(ExitKind.EXIT_KIND_SIGNALED);

        int detached = startDetached(req("sh", "-c", "sleep 0.5; echo done"));
        assertThat(stub().wait(id(detached)).getExitCode()).isZero();
        Seen s = new Seen();
        Iterator<AttachEvent> it = stub().attach(s.resume(detached));
        while (s.take(it.next())) {}
        assertThat(s.out.toString(StandardCharsets.US_ASCII)).isEqualTo("done\n");
        assertThat(stub().list(ListRequest.newBuilder().setAll(true).build()).getProcessesList())
                .anySatisfy(p -> assertThat(p.getProcessId()).isEqualTo(detached));
        assertThat(stub().list(ListRequest.getDefaultInstance()).getProcessesList())
                .noneSatisfy(p -> assertThat(p.getProcessId()).isEqualTo(detached));
    }

    @Test
    void aProcessV1StartIsListedAndAttachableAsASecondViewerJournalledFromItsFirstAttach() throws Exception {
        StartCollector v1 = new StartCollector();
        ProcessServiceGrpc.newStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .start(
                        io.sandboxd.api.process.v1.StartRequest.newBuilder()
                                .setConfig(ProcessConfig.newBuilder()
                                        .addCommand("sh")
                                        .addCommand("-c")
                                        .addCommand("echo hi; read x; echo got $x"))
                                .build(),
                        v1);
        int pid = v1.pid();
        ProcessInfo info = stub().get(id(pid));
        assertThat(info.getV1Start()).isTrue();
        assertThat(info.getState()).isEqualTo(ProcessState.PROCESS_STATE_RUNNING);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (stub().get(id(pid)).getStdoutWritten() < 3) {
            assertThat(System.nanoTime() - deadline).as("hi counted").isNegative();
            Thread.sleep(10);
        }
        assertThat(journalFiles(pid))
                .as("nothing on disk before the first attach")
                .isEmpty();
        Seen s = new Seen();
        Iterator<AttachEvent> it = stub().attach(s.resume(pid));
        while (s.gaps.isEmpty()) {
            s.take(it.next());
        }
        v1().writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid)
                .setInput(ByteString.copyFromUtf8("z\n"))
                .build());
        while (s.take(it.next())) {}
        assertThat(s.gaps)
                .as("one exact gap for the bytes from before the attach")
                .singleElement()
                .satisfies(g -> {
                    assertThat(g.getStream()).isEqualTo(Stream.STREAM_STDOUT);
                    assertThat(g.getOffset()).isZero();
                    assertThat(g.getLength()).isEqualTo(3);
                    assertThat(g.getReason())
                            .isEqualTo(io.sandboxd.api.durable.v1alpha1.GapReason.GAP_REASON_NOT_RECORDED);
                });
        assertThat(s.out.toString(StandardCharsets.US_ASCII))
                .as("the exact suffix")
                .isEqualTo("got z\n");
        assertThat(s.outOffset).isEqualTo(9);
        assertThat(v1.await().isOk()).isTrue();
        assertThat(v1.exitCode()).isZero();
        assertThat(v1.stdout()).isEqualTo("hi\ngot z\n");
    }

    @Test
    void aProcessV1StartNobodyAttachesToWritesNoJournalFiles() throws Exception {
        StartCollector v1 = new StartCollector();
        ProcessServiceGrpc.newStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .start(
                        io.sandboxd.api.process.v1.StartRequest.newBuilder()
                                .setConfig(ProcessConfig.newBuilder()
                                        .addCommand("sh")
                                        .addCommand("-c")
                                        .addCommand("head -c 3000000 /dev/zero; echo err >&2"))
                                .build(),
                        v1);
        int pid = v1.pid();
        assertThat(v1.await().isOk()).isTrue();
        assertThat(v1.exitCode()).isZero();
        ProcessInfo info = stub().get(id(pid));
        assertThat(info.getStdoutWritten()).isEqualTo(3_000_000);
        assertThat(info.getStderrWritten()).isEqualTo(4);
        assertThat(journalFiles(pid)).isEmpty();
        Seen s = new Seen();
        Iterator<AttachEvent> it = stub().attach(s.resume(pid));
        while (s.take(it.next())) {}
        assertThat(s.gaps)
                .extracting(io.sandboxd.api.durable.v1alpha1.Gap::getReason)
                .containsOnly(io.sandboxd.api.durable.v1alpha1.GapReason.GAP_REASON_NOT_RECORDED);
        assertThat(s.gapBytes).isEqualTo(3_000_004);
        assertThat(s.out.size() + s.err.size()).isZero();
        assertThat(s.exit.getExitCode()).isZero();
        assertThat(journalFiles(pid)).as("an ended process starts no journal").isEmpty();
    }

    /** Whatever the daemon's journal holds for process {@code pid} (its directory and files). */
    static List<Path> journalFiles(int pid) throws java.io.IOException {
        try (var w = Files.walk(state)) {
            return w.filter(p -> p.getNameCount() > state.getNameCount() + 1
                            && p.getName(state.getNameCount() + 1).toString().equals(Integer.toString(pid)))
                    .toList();
        }
    }

    @Test
    void getAndListReportTheCpuTimeAndRssOfTheWholeTree() throws Exception {
        // A child that burns CPU and is reaped by the shell, then two that keep burning.
        int pid = startDetached(req(
                "sh",
                "-c",
                "sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; echo reaped;"
                        + " yes > /dev/null & yes > /dev/null & wait"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        ProcessInfo info = stub().get(id(pid));
        while (info.getStdoutWritten() < 7 || info.getTree().getProcesses() < 3) {
            assertThat(System.nanoTime() - deadline)
                    .as("tree of 3 within 60 s: " + info)
                    .isNegative();
            Thread.sleep(20);
            info = stub().get(id(pid));
        }
        long reapedCpu = info.getTree().getCpuMillis();
        assertThat(reapedCpu)
                .as("the reaped child's CPU counts (cutime of the shell)")
                .isPositive();
        assertThat(info.getTree().getProcesses()).isEqualTo(3);
        assertThat(info.getTree().getRssBytes()).as("three resident sets").isGreaterThan(3 * 64 * 1024);
        while (info.getTree().getCpuMillis() < reapedCpu + 200) {
            assertThat(System.nanoTime() - deadline)
                    .as("the children's CPU counts: " + info)
                    .isNegative();
            Thread.sleep(50);
            info = stub().get(id(pid));
        }
        ProcessInfo listed = stub().list(ListRequest.getDefaultInstance()).getProcessesList().stream()
                .filter(p -> p.getProcessId() == pid)
                .findFirst()
                .orElseThrow();
        assertThat(listed.getTree().getProcesses()).isEqualTo(3);
        assertThat(listed.getTree().getCpuMillis())
                .isGreaterThanOrEqualTo(info.getTree().getCpuMillis());
        v1().sendSignal(SendSignalRequest.newBuilder()
                .setProcessId(pid)
                .setSignal(Signal.SIGNAL_SIGKILL)
                .build());
        stub().wait(id(pid));
        assertThat(stub().get(id(pid)).hasTree()).as("no tree once ended").isFalse();
    }

    @Test
    void aPtyProcessIsReattachedAcrossResizesEveryByteOnce() throws Exception {
        int pid = startDetached(req("sh", "-c", "stty size; read a; stty size; read b; stty size")
                .setPty(io.sandboxd.api.process.v1.PTY.newBuilder().setCols(80).setRows(24)));
        Seen seen = new Seen();
        int[][] sizes = {{120, 40}, {100, 30}};
        String[] expect = {"24 80", "40 120", "30 100"};
        for (int round = 0; round < 3; round++) {
            Context.CancellableContext ctx = Context.current().withCancellation();
            Context prev = ctx.attach();
            try {
                Iterator<AttachEvent> it = stub().attach(seen.resume(pid));
                AttachEvent first = it.next();
                if (round > 0 && first.hasOutput()) {
                    assertThat(first.getOutput().getOffset())
                            .as("the reattach starts where the last one stopped")
                            .isEqualTo(seen.outOffset);
                }
                if (round > 0) {
                    v1().writeStdin(WriteStdinRequest.newBuilder()
                            .setProcessId(pid)
                            .setInput(ByteString.copyFromUtf8("\n"))
                            .build());
                }
                boolean more = seen.take(first);
                while (more && !seen.out.toString(StandardCharsets.US_ASCII).contains(expect[round])) {
                    more = seen.take(it.next());
                }
                assertThat(seen.out.toString(StandardCharsets.US_ASCII)).contains(expect[round]);
                assertThat(seen.err.size()).as("a PTY has one stream").isZero();
            } finally {
                ctx.detach(prev);
                ctx.cancel(null); // the client goes away
            }
            if (round < 2) {
                v1().resizeTTY(io.sandboxd.api.process.v1.ResizeTTYRequest.newBuilder()
                        .setProcessId(pid)
                        .setCols(sizes[round][0])
                        .setRows(sizes[round][1])
                        .build());
            }
        }
        ExitRecord exit = stub().wait(id(pid));
        assertThat(exit.getExitCode()).isZero();
        Seen all = new Seen();
        Iterator<AttachEvent> it = stub().attach(all.resume(pid));
        while (all.take(it.next())) {}
        String pieces = seen.out.toString(StandardCharsets.US_ASCII);
        assertThat(all.out.toString(StandardCharsets.US_ASCII))
                .as("the pieces seen across reattaches are a prefix of the whole, byte for byte")
                .startsWith(pieces);
        assertThat(all.out.toString(StandardCharsets.US_ASCII)).containsSubsequence("24 80", "40 120", "30 100");
        assertThat(all.gapBytes).isZero();
        assertThat(all.err.size()).isZero();
    }

    @Test
    void aSilentAttachStreamGetsHeartbeats() {
        int pid = startDetached(req("sleep", "1"));
        Seen s = new Seen();
        Iterator<AttachEvent> it = stub().attach(s.resume(pid));
        while (s.take(it.next())) {}
        assertThat(s.heartbeats).isGreaterThanOrEqualTo(1);
        assertThat(s.exit.getExitCode()).isZero();
    }
}
