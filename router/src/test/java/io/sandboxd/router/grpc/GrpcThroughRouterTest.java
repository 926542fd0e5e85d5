package io.sandboxd.router.grpc;

import static io.sandboxd.router.grpc.ProcessCalls.channel;
import static io.sandboxd.router.grpc.ProcessCalls.execute;
import static io.sandboxd.router.grpc.ProcessCalls.routed;
import static io.sandboxd.router.grpc.ProcessCalls.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.router.testing.RouterFixture;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ProcessService through the router over HTTP/2 prior knowledge, with grpc-java and the api module's
 * stubs against the real daemon (a process on loopback): the same answers, trailers, statuses and
 * deadlines as direct, stdin and PTY calls to a running process, and a cancel that the daemon sees.
 */
class GrpcThroughRouterTest {
    static final int OUTPUT_LIMIT = 1024;
    static Path root;
    static RunningDaemon daemon;
    static RouterFixture router;
    static ManagedChannel viaRouter;
    static ManagedChannel direct;

    @BeforeAll
    static void startDaemonAndRouter() throws Exception {
        root = Files.createTempDirectory("router-grpc");
        daemon = DaemonSpec.packagedJar()
                .withRootDir(root)
                .withArgs("--execute-output-limit", Integer.toString(OUTPUT_LIMIT))
                .start();
        router = new RouterFixture(RouterFixture.config().withAllowLoopbackPodIp(true));
        viaRouter = channel(router.port());
        direct = channel(daemon.grpcPort());
    }

    @AfterAll
    static void stop() throws Exception {
        viaRouter.shutdownNow();
        direct.shutdownNow();
        router.close();
        daemon.close();
    }

    static Channel routedChannel() {
        return routed(viaRouter, daemon.grpcPort());
    }

    static ProcessServiceGrpc.ProcessServiceBlockingStub blocking(Channel ch) {
        return ProcessServiceGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    @Test
    void executeAnswersAsDirectWithTheTruncationTrailers() throws Exception {
        ExecuteResponse r = blocking(routedChannel()).execute(execute("sh", "-c", "echo hello; echo oops >&2; exit 3"));
        assertThat(r.getExitCode()).isEqualTo(3);
        assertThat(r.getStdout().toStringUtf8()).isEqualTo("hello\n");
        assertThat(r.getStderr().toStringUtf8()).isEqualTo("oops\n");

        // More output than --execute-output-limit: the daemon reports the dropped bytes in trailers.
        String big = "head -c 5000 /dev/zero | tr '\\000' a; head -c 3000 /dev/zero | tr '\\000' b >&2";
        AtomicReference<Metadata> viaTrailers = new AtomicReference<>();
        AtomicReference<Metadata> directTrailers = new AtomicReference<>();
        ExecuteResponse routedBig = blocking(ClientInterceptors.intercept(
                        routedChannel(),
                        MetadataUtils.newCaptureMetadataInterceptor(new AtomicReference<>(), viaTrailers)))
                .execute(execute("sh", "-c", big));
        ExecuteResponse directBig = blocking(ClientInterceptors.intercept(
                        direct, MetadataUtils.newCaptureMetadataInterceptor(new AtomicReference<>(), directTrailers)))
                .execute(execute("sh", "-c", big));
        assertThat(routedBig).isEqualTo(directBig);
        Metadata.Key<String> out = Metadata.Key.of("sandboxd-stdout-truncated-bytes", Metadata.ASCII_STRING_MARSHALLER);
        Metadata.Key<String> err = Metadata.Key.of("sandboxd-stderr-truncated-bytes", Metadata.ASCII_STRING_MARSHALLER);
        assertThat(viaTrailers.get().get(out))
                .isEqualTo(directTrailers.get().get(out))
                .isEqualTo(Integer.toString(5000 - OUTPUT_LIMIT));
        assertThat(viaTrailers.get().get(err))
                .isEqualTo(directTrailers.get().get(err))
                .isEqualTo(Integer.toString(3000 - OUTPUT_LIMIT));
    }

    @Test
    void errorStatusAndMessageArriveUnchanged() {
        StatusRuntimeException viaRouterError = (StatusRuntimeException) org.assertj.core.api.Assertions.catchThrowable(
                () -> blocking(routedChannel()).execute(execute()));
        StatusRuntimeException directError = (StatusRuntimeException) org.assertj.core.api.Assertions.catchThrowable(
                () -> blocking(direct).execute(execute()));
        assertThat(viaRouterError.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(viaRouterError.getStatus().getDescription())
                .isEqualTo(directError.getStatus().getDescription());
    }

    @Test
    void deadlinesReachTheDaemonUnchanged() {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> ProcessServiceGrpc.newBlockingStub(routedChannel())
                        .withDeadlineAfter(1, TimeUnit.SECONDS)
                        .execute(execute("sleep", "30")))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(10));
    }

    @Test
    void writeStdinReachesARunningProcess() throws Exception {
        ProcessCalls.StartCollector c = new ProcessCalls.StartCollector();
        ProcessServiceGrpc.newStub(routedChannel())
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .start(start("cat"), c);
        int pid = c.pid.get(60, TimeUnit.SECONDS);
        var stub = blocking(routedChannel());
        stub.writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid)
                .setInput(ByteString.copyFromUtf8("through the router"))
                .build());
        stub.writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid)
                .setEof(com.google.protobuf.Empty.getDefaultInstance())
                .build());
        assertThat(c.exit.get(60, TimeUnit.SECONDS)).isZero();
        assertThat(c.done.get(60, TimeUnit.SECONDS)).isNull();
        assertThat(c.stdoutText()).isEqualTo("through the router");
    }

    @Test
    void ptyStartAndResizeTty() throws Exception {
        ProcessCalls.StartCollector c = new ProcessCalls.StartCollector();
        StartRequest req = start("sh", "-c", "read x; stty size").toBuilder()
                .setPty(PTY.newBuilder().setCols(80).setRows(24))
                .build();
        ProcessServiceGrpc.newStub(routedChannel())
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .start(req, c);
        int pid = c.pid.get(60, TimeUnit.SECONDS);
        var stub = blocking(routedChannel());
        stub.resizeTTY(ResizeTTYRequest.newBuilder()
                .setProcessId(pid)
                .setCols(100)
                .setRows(30)
                .build());
        stub.writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid)
                .setInput(ByteString.copyFromUtf8("\n"))
                .build());
        assertThat(c.exit.get(60, TimeUnit.SECONDS)).isZero();
        assertThat(c.stdoutText()).contains("30 100");
    }

    /** A cancelled call reaches the daemon as RST_STREAM: it kills the process tree (here a shell and its sleep). */
    @Test
    void cancelKillsTheProcessTree() throws Exception {
        ProcessCalls.StartCollector c = new ProcessCalls.StartCollector();
        Context.CancellableContext call = Context.current().withCancellation();
        call.run(() -> ProcessServiceGrpc.newStub(routedChannel())
                .start(start("sh", "-c", "echo $$; sleep 300 & echo $!; wait"), c));
        c.pid.get(60, TimeUnit.SECONDS); // the daemon's process id, not the OS pid: the shell prints that
        long deadlineForPids = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (c.stdoutText().split("\n").length < 2 && System.nanoTime() < deadlineForPids) {
            Thread.sleep(10);
        }
        String[] pids = c.stdoutText().trim().split("\n");
        int shell = Integer.parseInt(pids[0].trim());
        int sleeper = Integer.parseInt(pids[1].trim());
        assertThat(alive(shell)).isTrue();
        assertThat(alive(sleeper)).isTrue();
        call.cancel(null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while ((alive(shell) || alive(sleeper)) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(alive(shell)).as("shell %d killed", shell).isFalse();
        assertThat(alive(sleeper)).as("its child %d killed", sleeper).isFalse();
    }

    @Test
    void routerRefusalsAreGrpcStatuses() {
        Channel noId = ClientInterceptors.intercept(viaRouter, ProcessCalls.route(Map.of("x-sandbox-port", "1")));
        assertThatThrownBy(() -> blocking(noId).execute(execute("true")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).isEqualTo("X-Sandbox-ID header is required.");
                });
        Channel unknown = ClientInterceptors.intercept(viaRouter, ProcessCalls.route(Map.of("x-sandbox-id", "nosuch")));
        assertThatThrownBy(() -> blocking(unknown).execute(execute("true")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                    assertThat(e.getStatus().getDescription())
                            .isEqualTo(
                                    "Could not connect to the backend sandbox: nosuch (no Service default/nosuch owned by a Sandbox)");
                });
    }

    static boolean alive(int pid) {
        // A zombie awaiting its reaper is dead for this purpose.
        try {
            String stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"), StandardCharsets.UTF_8);
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
