package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.daemon.config.TestConfig;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, the gRPC inputs other than message size: calls per connection
 * ({@code --grpc-max-concurrent-calls}), request metadata, and argv/environment beyond what the
 * kernel takes. Each is refused or held back on its own; the connection keeps serving.
 */
class ConnectionLimitsTest {
    @TempDir
    Path root;

    private static ExecuteRequest echo(String word) {
        return ExecuteRequest.newBuilder()
                .setConfig(ProcessConfig.newBuilder().addCommand("echo").addCommand(word))
                .build();
    }

    private static StartRequest sleeper() {
        return StartRequest.newBuilder()
                .setConfig(ProcessConfig.newBuilder().addCommand("sleep").addCommand("600"))
                .build();
    }

    @Test
    void callsBeyondTheCapWaitOnTheirConnectionOnly() throws Exception {
        try (GrpcDaemon d = GrpcDaemon.start(root, c -> TestConfig.withMaxConcurrentCalls(c, 2))) {
            StartCollector first = new StartCollector();
            StartCollector second = new StartCollector();
            d.async().start(sleeper(), first);
            d.async().start(sleeper(), second);
            int firstPid = first.pid();
            second.pid();

            // both of the connection's 2 calls are taken: a third waits (the client queues it)
            assertThatThrownBy(() -> ProcessServiceGrpc.newBlockingStub(d.channel)
                            .withDeadlineAfter(1500, TimeUnit.MILLISECONDS)
                            .execute(echo("queued")))
                    .isInstanceOfSatisfying(
                            StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
            // another connection is not held back
            ManagedChannel other = NettyChannelBuilder.forAddress("127.0.0.1", d.daemon.grpcPort())
                    .usePlaintext()
                    .build();
            try {
                assertThat(ProcessServiceGrpc.newBlockingStub(other)
                                .withDeadlineAfter(30, TimeUnit.SECONDS)
                                .execute(echo("other"))
                                .getStdout()
                                .toStringUtf8())
                        .isEqualTo("other\n");
                // once a call ends, the waiting one goes through on the first connection
                ProcessServiceGrpc.newBlockingStub(other)
                        .withDeadlineAfter(30, TimeUnit.SECONDS)
                        .sendSignal(SendSignalRequest.newBuilder()
                                .setProcessId(firstPid)
                                .setSignal(Signal.SIGNAL_SIGKILL)
                                .build());
            } finally {
                other.shutdownNow();
            }
            first.await();
            assertThat(d.blocking().execute(echo("after")).getStdout().toStringUtf8())
                    .isEqualTo("after\n");
        }
    }

    @Test
    void metadataOverEightKibIsRefusedAndTheConnectionServesOn() throws Exception {
        try (GrpcDaemon d = GrpcDaemon.start(root)) {
            Metadata big = new Metadata();
            big.put(Metadata.Key.of("x-padding", Metadata.ASCII_STRING_MARSHALLER), "p".repeat(16 * 1024));
            assertThatThrownBy(() -> d.blocking()
                            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(big))
                            .execute(echo("big")))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(
                                    e.getStatus().getCode())
                            .as(e.getStatus().toString())
                            .isIn(Status.Code.RESOURCE_EXHAUSTED, Status.Code.INTERNAL));
            assertThat(d.blocking().execute(echo("fine")).getStdout().toStringUtf8())
                    .isEqualTo("fine\n");
        }
    }

    @Test
    void argumentsTheKernelRefusesAreInvalidArgumentWithPipesAndPty() throws Exception {
        // one string above the kernel's 128 KiB (MAX_ARG_STRLEN): execve says E2BIG
        String huge = "a".repeat(200 * 1024);
        try (GrpcDaemon d = GrpcDaemon.start(root)) {
            assertThatThrownBy(() -> d.blocking()
                            .execute(ExecuteRequest.newBuilder()
                                    .setConfig(ProcessConfig.newBuilder()
                                            .addCommand("echo")
                                            .addCommand(huge))
                                    .build()))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                        assertThat(e.getStatus().getDescription()).contains("E2BIG");
                    });
            StartCollector pty = new StartCollector();
            d.async()
                    .start(
                            StartRequest.newBuilder()
                                    .setConfig(ProcessConfig.newBuilder()
                                            .addCommand("env")
                                            .putEnvVars("HUGE", huge))
                                    .setPty(PTY.newBuilder().setCols(80).setRows(24))
                                    .build(),
                            pty);
            Status s = pty.await();
            assertThat(s.getCode()).as(s.toString()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(d.blocking().execute(echo("fine")).getStdout().toStringUtf8())
                    .isEqualTo("fine\n");
        }
    }
}
