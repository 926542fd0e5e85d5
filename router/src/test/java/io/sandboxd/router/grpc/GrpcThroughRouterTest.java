package io.sandboxd.router.grpc;

import static io.sandboxd.router.grpc.ProcessCalls.alive;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.client.Command;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.router.testing.H2RawClient;
import io.sandboxd.router.testing.RouterFixture;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ProcessService through the router over HTTP/2 prior knowledge, with the project's client library
 * against the real daemon (a process on loopback): the same answers, trailers, statuses and
 * deadlines as direct, stdin and PTY calls to a running process, and a cancel that the daemon sees.
 */
class GrpcThroughRouterTest {
    static final int OUTPUT_LIMIT = 1024;
    static final Duration WAIT = Duration.ofSeconds(60);
    static RunningDaemon daemon;
    static RouterFixture router;
    static ManagedChannel routerChannel;
    static SandboxdClient viaRouter;
    static SandboxdClient direct;

    @BeforeAll
    static void startDaemonAndRouter() throws Exception {
        daemon = DaemonSpec.packagedJar()
                .withRootDir(Files.createTempDirectory("router-grpc"))
                .withArgs("--execute-output-limit", Integer.toString(OUTPUT_LIMIT))
                .start();
        router = new RouterFixture(RouterFixture.config().withAllowLoopbackPodIp(true));
        routerChannel = ProcessCalls.routerChannel(router.port(), daemon.grpcPort());
        viaRouter = ProcessCalls.client(routerChannel, "127.0.0.1:" + router.port());
        direct = SandboxdClient.builder()
                .grpcTarget(daemon.grpcTarget())
                .callTimeout(WAIT)
                .build();
    }

    @AfterAll
    static void stop() throws Exception {
        viaRouter.close();
        routerChannel.shutdownNow();
        direct.close();
        router.close();
        daemon.close();
    }

    @Test
    void executeAnswersAsDirectWithEveryTrailer() {
        ExecResult r = viaRouter.execute("sh", "-c", "echo hello; echo oops >&2; exit 3");
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.stdoutText()).isEqualTo("hello\n");
        assertThat(r.stderrText()).isEqualTo("oops\n");

        // More output than --execute-output-limit: the daemon reports the dropped bytes in trailers.
        String big = "head -c 5000 /dev/zero | tr '\\000' a; head -c 3000 /dev/zero | tr '\\000' b >&2";
        ExecResult routed = viaRouter.execute("sh", "-c", big);
        ExecResult straight = direct.execute("sh", "-c", big);
        assertThat(routed.response()).isEqualTo(straight.response());
        assertThat(routed.stdoutTruncatedBytes()).isEqualTo(5000 - OUTPUT_LIMIT);
        assertThat(routed.stderrTruncatedBytes()).isEqualTo(3000 - OUTPUT_LIMIT);
        assertThat(routed.trailers().keys()).isEqualTo(straight.trailers().keys());
        for (String k : straight.trailers().keys()) {
            Metadata.Key<String> key = Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER);
            assertThat(routed.trailers().get(key))
                    .as(k)
                    .isEqualTo(straight.trailers().get(key));
        }
    }

    @Test
    void startStreamsAsDirect() {
        Command c = Command.of("sh", "-c", "echo out; echo err >&2; exit 7");
        StartRecorder routed = new StartRecorder();
        StartRecorder straight = new StartRecorder();
        viaRouter.start(c, routed);
        direct.start(c, straight);
        assertThat(routed.awaitEnd(WAIT) && straight.awaitEnd(WAIT)).isTrue();
        assertThat(routed.status().isOk()).as("%s", routed.status()).isTrue();
        assertThat(routed.exitCode()).isEqualTo(7);
        assertThat(routed.stdoutText()).isEqualTo(straight.stdoutText()).isEqualTo("out\n");
        assertThat(routed.stderrText()).isEqualTo(straight.stderrText()).isEqualTo("err\n");
        assertThat(routed.violations()).isEmpty();
    }

    @Test
    void errorStatusAndMessageArriveUnchanged() {
        ExecuteRequest empty = ExecuteRequest.getDefaultInstance();
        GrpcCallException viaRouterError =
                (GrpcCallException) org.assertj.core.api.Assertions.catchThrowable(() -> viaRouter.execute(empty));
        GrpcCallException directError =
                (GrpcCallException) org.assertj.core.api.Assertions.catchThrowable(() -> direct.execute(empty));
        assertThat(viaRouterError.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(viaRouterError.description()).isEqualTo(directError.description());
    }

    /** The caller's deadline travels as grpc-timeout; no router timer shortens or extends it. */
    @Test
    void deadlinesReachTheDaemonUnchanged() throws Exception {
        long t0 = System.nanoTime();
        assertThatThrownBy(
                        () -> viaRouter.withCallTimeout(Duration.ofSeconds(1)).execute("sleep", "30"))
                .isInstanceOfSatisfying(
                        GrpcCallException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(10));

        StartRecorder r = new StartRecorder();
        viaRouter.withStreamDeadline(Duration.ofSeconds(3)).start(Command.shell("echo $$; exec sleep 30"), r);
        assertThat(r.awaitStdoutContains("\n", WAIT)).isTrue();
        int shell = Integer.parseInt(r.stdoutText().trim());
        assertThat(r.awaitEnd(WAIT)).isTrue();
        assertThat(r.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(25));
        awaitDead(shell);
    }

    /**
     * The deadline alone, with no client that cancels at it: a raw HTTP/2 caller sends
     * {@code grpc-timeout: 2S} and waits. The daemon ends the call at its deadline (grpc-java resets
     * a stream whose response has begun, RST_STREAM CANCEL) and kills the process, which it can only
     * do if the router forwarded the header; the caller sees what it sees straight from the daemon.
     */
    @Test
    void grpcTimeoutReachesTheDaemonWhenNoClientEnforcesIt() throws Exception {
        H2RawClient.Answer routed = startWithOnlyAGrpcTimeout(router.port());
        H2RawClient.Answer straight = startWithOnlyAGrpcTimeout(daemon.grpcPort());
        assertThat(routed.resetCode()).isEqualTo(straight.resetCode()).isEqualTo(8L);
        assertThat(routed.headers().get(0).status())
                .isEqualTo(straight.headers().get(0).status());
    }

    private static H2RawClient.Answer startWithOnlyAGrpcTimeout(int port) throws Exception {
        byte[] msg = Command.shell("echo $$; exec sleep 30").toStartRequest().toByteArray();
        byte[] framed = java.nio.ByteBuffer.allocate(5 + msg.length)
                .put((byte) 0)
                .putInt(msg.length)
                .put(msg)
                .array();
        io.netty.handler.codec.http2.Http2Headers h = H2RawClient.request("POST", "/process.v1.ProcessService/Start")
                .add("content-type", "application/grpc")
                .add("te", "trailers")
                .add("grpc-timeout", "2S")
                .add("x-sandbox-id", "sb")
                .add("x-sandbox-pod-ip", "127.0.0.1")
                .add("x-sandbox-port", Integer.toString(daemon.grpcPort()));
        long t0 = System.nanoTime();
        H2RawClient.Answer a;
        try (H2RawClient c = new H2RawClient(port)) {
            a = c.exchange(h, framed); // waits up to 30 s: the sleep would outlive that
        }
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(20));
        StringBuilder stdout = new StringBuilder();
        java.nio.ByteBuffer body = java.nio.ByteBuffer.wrap(a.body());
        while (body.remaining() >= 5) {
            body.get();
            byte[] m = new byte[body.getInt()];
            body.get(m);
            stdout.append(StartResponse.parseFrom(m).getStdout().toStringUtf8());
        }
        awaitDead(Integer.parseInt(stdout.toString().trim()));
        return a;
    }

    @Test
    void writeStdinReachesARunningProcess() {
        StartRecorder r = new StartRecorder();
        RemoteProcess p = viaRouter.start(Command.of("cat"), r);
        p.writeStdin("through the router".getBytes(StandardCharsets.UTF_8));
        p.closeStdin();
        assertThat(r.awaitEnd(WAIT)).isTrue();
        assertThat(r.exitCode()).isZero();
        assertThat(r.status().isOk()).isTrue();
        assertThat(r.stdoutText()).isEqualTo("through the router");
    }

    @Test
    void ptyStartAndResizeTty() {
        StartRecorder r = new StartRecorder();
        RemoteProcess p =
                viaRouter.start(Command.of("sh", "-c", "read x; stty size").tty(80, 24), r);
        p.resize(100, 30);
        p.writeStdin("\n".getBytes(StandardCharsets.UTF_8));
        assertThat(r.awaitEnd(WAIT)).isTrue();
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdoutText()).contains("30 100");
    }

    /** A cancelled call reaches the daemon as RST_STREAM: it kills the process tree (here a shell and its sleep). */
    @Test
    void cancelKillsTheProcessTree() throws Exception {
        StartRecorder r = new StartRecorder();
        RemoteProcess p = viaRouter.start(Command.shell("echo $$; sleep 300 & echo $!; wait"), r);
        assertThat(r.await(x -> x.stdoutText().split("\n").length >= 2, WAIT)).isTrue();
        String[] pids = r.stdoutText().trim().split("\n");
        int shell = Integer.parseInt(pids[0].trim());
        int sleeper = Integer.parseInt(pids[1].trim());
        assertThat(alive(shell)).isTrue();
        assertThat(alive(sleeper)).isTrue();
        p.cancel();
        awaitDead(shell);
        awaitDead(sleeper);
        assertThat(r.awaitEnd(WAIT)).isTrue();
        assertThat(r.status().getCode()).isEqualTo(Status.Code.CANCELLED);
    }

    @Test
    void routerRefusalsAreGrpcStatuses() {
        ManagedChannel noId = ProcessCalls.routerChannel(router.port(), Map.of("x-sandbox-port", "1"));
        ManagedChannel unknown = ProcessCalls.routerChannel(router.port(), Map.of("x-sandbox-id", "nosuch"));
        try (SandboxdClient a = ProcessCalls.client(noId, "router");
                SandboxdClient b = ProcessCalls.client(unknown, "router")) {
            assertThatThrownBy(() -> a.execute("true")).isInstanceOfSatisfying(GrpcCallException.class, e -> {
                assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(e.description()).isEqualTo("X-Sandbox-ID header is required.");
            });
            assertThatThrownBy(() -> b.execute("true")).isInstanceOfSatisfying(GrpcCallException.class, e -> {
                assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.description())
                        .isEqualTo("Could not connect to the backend sandbox: nosuch"
                                + " (no Service default/nosuch owned by a Sandbox)");
            });
        } finally {
            noId.shutdownNow();
            unknown.shutdownNow();
        }
    }

    private static void awaitDead(int pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (alive(pid) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(alive(pid)).as("process %d killed", pid).isFalse();
    }
}
