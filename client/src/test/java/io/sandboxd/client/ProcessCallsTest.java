package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The gRPC half of the client against the packaged daemon: real processes, real PTYs. */
class ProcessCallsTest {
    static RunningDaemon daemon;
    static SandboxdClient client;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start("process-calls", s -> s.withArgs("--execute-output-limit", "2048"));
        client = TestDaemons.client(daemon);
    }

    @AfterAll
    static void stop() {
        client.close();
        daemon.close();
    }

    @Test
    void executeReturnsExitCodeStdoutAndStderr() {
        ExecResult r = client.execute("sh", "-c", "printf out; printf err >&2; exit 3");
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.stdoutText()).isEqualTo("out");
        assertThat(r.stderrText()).isEqualTo("err");
        assertThat(r.stdoutTruncatedBytes()).isZero();
    }

    @Test
    void executeAppliesEnvAndCwd() throws Exception {
        java.nio.file.Files.createDirectories(daemon.rootDir().resolve("work/sub"));
        ExecResult r = client.execute(Command.shell("echo \"$GREETING\"; pwd")
                .env("GREETING", "hallo welt")
                .cwd("work/sub"));
        assertThat(r.stdoutText())
                .isEqualTo("hallo welt\n" + daemon.rootDir().toRealPath().resolve("work/sub") + "\n");
    }

    @Test
    void executeReportsWhatTheDaemonDroppedInTheTrailers() {
        ExecResult r = client.execute("sh", "-c", "head -c 5000 /dev/zero; head -c 3000 /dev/zero >&2");
        assertThat(r.stdout().size()).isEqualTo(2048);
        assertThat(r.stdoutTruncatedBytes()).isEqualTo(5000 - 2048);
        assertThat(r.stderrTruncatedBytes()).isEqualTo(3000 - 2048);
        assertThat(r.trailers().keys()).contains("sandboxd-stdout-truncated-bytes");
    }

    @Test
    void executeFailuresCarryTheStatusCodeAndMessage() {
        assertThatThrownBy(() -> client.execute("no-such-binary-4711"))
                .isInstanceOfSatisfying(GrpcCallException.class, e -> {
                    assertThat(e.code()).isEqualTo(Status.Code.NOT_FOUND);
                    assertThat(e.description()).contains("no-such-binary-4711");
                    assertThat(e.method()).isEqualTo("Execute");
                    assertThat(e.target()).isEqualTo(daemon.grpcTarget());
                    assertThat(e.getMessage())
                            .isEqualTo("Execute at " + daemon.grpcTarget() + ": NOT_FOUND: " + e.description());
                });
        assertThatThrownBy(() -> client.execute(ExecuteRequest.newBuilder()
                        .setConfig(ProcessConfig.getDefaultInstance())
                        .build()))
                .isInstanceOfSatisfying(
                        GrpcCallException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> Command.of("x").tty(80, 24).toExecuteRequest())
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pullModeDeliversInitOutputAndExitInOrderThenNull() {
        try (RemoteProcess p = client.start(Command.of("cat"))) {
            int pid = p.pid();
            assertThat(pid).isPositive();
            p.writeStdin("hello ".getBytes(StandardCharsets.UTF_8));
            p.writeStdin(ByteString.copyFromUtf8("world"));
            p.closeStdin();
            List<StartResponse> events = new ArrayList<>();
            for (StartResponse ev; (ev = p.next()) != null; ) {
                events.add(ev);
            }
            assertThat(events.get(0).getInit().getProcessId()).isEqualTo(pid);
            assertThat(events.get(events.size() - 1).getExit().getExitCode()).isZero();
            StringBuilder out = new StringBuilder();
            events.stream()
                    .filter(StartResponse::hasStdout)
                    .forEach(e -> out.append(e.getStdout().toStringUtf8()));
            assertThat(out).hasToString("hello world");
            assertThat(p.exitCode()).isZero();
            assertThat(p.status().isOk()).isTrue();
            assertThat(p.isEnded()).isTrue();
            assertThat(p.next()).as("still null after the end").isNull();
            assertThatThrownBy(p::closeStdin).isInstanceOfSatisfying(GrpcCallException.class, e -> assertThat(e.code())
                    .isEqualTo(Status.Code.NOT_FOUND));
        }
    }

    @Test
    void pushModeRecordsTheWholeStreamWithItsShape() {
        StartRecorder rec = new StartRecorder();
        client.start(Command.shell("echo out; echo err >&2; exit 7"), rec);
        assertThat(rec.awaitEnd(Duration.ofSeconds(30))).isTrue();
        assertThat(rec.exitCode()).isEqualTo(7);
        assertThat(rec.stdoutText()).isEqualTo("out\n");
        assertThat(rec.stderrText()).isEqualTo("err\n");
        assertThat(rec.status().isOk()).isTrue();
        assertThat(rec.violations()).isEmpty();
        assertThat(rec.events().get(0).message().hasInit()).isTrue();
        assertThat(rec.exitEvent().nanos()).isLessThanOrEqualTo(rec.endedNanos());
        assertThat(rec.describe())
                .startsWith("[init{process_id=")
                .contains("exit{exit_code=7}")
                .endsWith("then status OK");
    }

    @Test
    void signalEndsTheProcessWith128PlusN() {
        StartRecorder rec = new StartRecorder();
        RemoteProcess p = client.start(Command.of("sleep", "100"), rec);
        p.signal(Signal.SIGNAL_SIGINT);
        assertThat(rec.awaitEnd(Duration.ofSeconds(30))).isTrue();
        assertThat(rec.exitCode()).isEqualTo(130);
        assertThatThrownBy(() -> client.sendSignal(SendSignalRequest.newBuilder()
                        .setProcessId(p.pid())
                        .setSignalValue(99)
                        .build()))
                .isInstanceOf(GrpcCallException.class);
    }

    @Test
    void ttyHasTheRequestedSizeAndFollowsResize() {
        StartRecorder rec = new StartRecorder();
        RemoteProcess p = client.start(
                Command.shell("stty size; echo ready; read x; stty size").tty(100, 30), rec);
        assertThat(rec.awaitStdoutContains("ready", Duration.ofSeconds(30)))
                .as(rec.describe())
                .isTrue();
        p.resize(120, 40);
        p.writeStdin("\n".getBytes(StandardCharsets.UTF_8));
        assertThat(rec.awaitEnd(Duration.ofSeconds(30))).isTrue();
        assertThat(rec.stdoutText()).startsWith("30 100\r\nready\r\n").endsWith("40 120\r\n");
        assertThat(rec.exitCode()).isZero();
    }

    @Test
    void aStoppedPullConsumerStallsTheProcessInsteadOfBuffering() throws Exception {
        String marker = "stall-" + System.nanoTime();
        try (RemoteProcess p = client.start(Command.shell("exec yes " + marker))) {
            assertThat(p.next().hasInit()).isTrue();
            ProcStat yes = awaitDescendant("yes");
            Thread.sleep(1500);
            long written = new io.sandboxd.testkit.proc.ProcessObserver(yes.pid()).bytesWritten();
            Thread.sleep(1000);
            long later = new io.sandboxd.testkit.proc.ProcessObserver(yes.pid()).bytesWritten();
            assertThat(later).as("yes is blocked on its pipe").isEqualTo(written);
            assertThat(written)
                    .as("what was written is pipe + one message + windows, not more")
                    .isLessThan(16L << 20);
            long got = 0;
            while (got < 64L << 20) {
                StartResponse ev = p.next();
                got += ev.getStdout().size();
            }
            assertThat(new io.sandboxd.testkit.proc.ProcessObserver(yes.pid()).bytesWritten())
                    .isGreaterThan(written);
        }
        Poll.await(
                Duration.ofSeconds(20),
                () -> daemon.observer().liveDescendantsNamed("yes").isEmpty(),
                () -> "close() cancels the stream and the daemon kills yes: "
                        + daemon.observer().descendants());
    }

    @Test
    void pullModeCarriesLargeOutputExactly() {
        long n = 300L << 20;
        try (RemoteProcess p = client.start(Command.of("head", "-c", Long.toString(n), "/dev/zero"))) {
            long got = 0;
            int exit = -1;
            for (StartResponse ev; (ev = p.next()) != null; ) {
                if (ev.hasStdout()) {
                    got += ev.getStdout().size();
                } else if (ev.hasExit()) {
                    exit = ev.getExit().getExitCode();
                }
            }
            assertThat(got).isEqualTo(n);
            assertThat(exit).isZero();
        }
    }

    @Test
    void aStreamDeadlineEndsTheStreamWithDeadlineExceeded() {
        try (RemoteProcess p =
                client.withStreamDeadline(Duration.ofMillis(1500)).start(Command.of("sleep", "100"))) {
            assertThat(p.next().hasInit()).isTrue();
            assertThatThrownBy(p::next).isInstanceOfSatisfying(GrpcCallException.class, e -> assertThat(e.code())
                    .isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        }
    }

    @Test
    void startOfAMissingBinaryFailsPidAndNext() {
        RemoteProcess p = client.start(Command.of("no-such-binary-4712"));
        assertThatThrownBy(p::pid).isInstanceOfSatisfying(GrpcCallException.class, e -> {
            assertThat(e.code()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(e.method()).isEqualTo("Start");
        });
        assertThatThrownBy(p::next).isInstanceOf(GrpcCallException.class);
    }

    @Test
    void aListenerThatThrowsCancelsTheStream() {
        StartRecorder rec = new StartRecorder();
        RemoteProcess p = client.start(Command.of("sleep", "100"), new StartListener() {
            @Override
            public void onEvent(StartResponse event) {
                rec.onEvent(event);
                if (event.hasInit()) {
                    throw new IllegalStateException("listener gives up");
                }
            }

            @Override
            public void onEnd(Status status, io.grpc.Metadata trailers) {
                rec.onEnd(status, trailers);
            }
        });
        assertThat(rec.awaitEnd(Duration.ofSeconds(30))).isTrue();
        assertThat(rec.status().getCode()).isEqualTo(Status.Code.CANCELLED);
        assertThat(p.status().getCode()).isEqualTo(Status.Code.CANCELLED);
        assertThatThrownBy(p::next).isInstanceOf(IllegalStateException.class).hasMessageContaining("StartListener");
    }

    @Test
    void countingRecorderKeepsNoOutput() {
        StartRecorder rec = StartRecorder.countingOnly();
        client.start(Command.of("head", "-c", "3000000", "/dev/zero"), rec);
        assertThat(rec.awaitEnd(Duration.ofSeconds(60))).isTrue();
        assertThat(rec.stdoutBytes()).isEqualTo(3_000_000);
        assertThat(rec.stdout()).isEmpty();
        assertThat(rec.events()).isEmpty();
        assertThat(rec.exitCode()).isZero();
    }

    @Test
    void aCallerSuppliedChannelAndExecutorAreUsedAndLeftOpen() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        ManagedChannel ch = NettyChannelBuilder.forTarget(daemon.grpcTarget())
                .usePlaintext()
                .executor(pool)
                .build();
        try {
            SandboxdClient c = SandboxdClient.builder()
                    .channel(ch)
                    .restBase(daemon.restBase())
                    .build();
            assertThat(c.execute("echo", "via supplied channel").stdoutText()).isEqualTo("via supplied channel\n");
            assertThat(c.managedChannel()).isSameAs(ch);
            c.close();
            assertThat(ch.isShutdown())
                    .as("the caller's channel is the caller's to close")
                    .isFalse();
            assertThat(c.execute("true").exitCode()).isZero();
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            pool.shutdownNow();
        }
    }

    @Test
    void closeStopsTheClientsThreads() throws Exception {
        java.util.Set<String> before = threadNames();
        SandboxdClient c = TestDaemons.client(daemon);
        c.execute("true");
        java.util.Set<String> mine = threadNames();
        mine.removeAll(before);
        mine.removeIf(n -> !n.startsWith("sandboxd-client-io"));
        assertThat(mine).as("the client's own event loop").hasSize(1);
        c.close();
        Poll.await(
                Duration.ofSeconds(10),
                () -> java.util.Collections.disjoint(threadNames(), mine),
                () -> "left: " + mine);
        assertThatThrownBy(() -> c.execute("true")).isInstanceOf(SandboxdException.class);
    }

    private static java.util.Set<String> threadNames() {
        java.util.Set<String> out = new java.util.HashSet<>();
        Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).forEach(t -> out.add(t.getName()));
        return out;
    }

    private static ProcStat awaitDescendant(String comm) {
        Poll.await(
                Duration.ofSeconds(20),
                () -> !daemon.observer().liveDescendantsNamed(comm).isEmpty(),
                () -> "no " + comm + " under the daemon: " + daemon.observer().descendants());
        return daemon.observer().liveDescendantsNamed(comm).get(0);
    }
}
