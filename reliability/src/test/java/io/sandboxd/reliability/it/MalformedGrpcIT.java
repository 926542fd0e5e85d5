package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.client.Command;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Malformed gRPC: oversized messages → RESOURCE_EXHAUSTED, unknown enum values, missing oneofs
 * and configs, undecodable and unknown-field payloads, too many or too few request messages on a
 * unary method, an unknown method, and oversized metadata. The daemon answers each and keeps serving.
 */
class MalformedGrpcIT {
    /** Well above grpc-java's default 4 MiB max inbound message, which the daemon is expected to keep. */
    private static final int OVERSIZED = Integer.getInteger("sandboxd.test.oversizedMessage", 20 << 20);

    private static RunningDaemon daemon;
    private static SandboxdClient client;

    /** A Start stream: the process to act on, and what it sent. */
    private record Stream(RemoteProcess process, StartRecorder recorder) {}

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx256m")
                .withLogName("MalformedGrpcIT")
                .start();
        client = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase());
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (daemon != null) {
                assertStillServes();
            }
        } finally {
            if (client != null) {
                client.close();
            }
            if (daemon != null) {
                daemon.killTree();
            }
        }
    }

    private static void assertStillServes() {
        try (SandboxdClient fresh = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase())) {
            assertThat(fresh.execute(exec("echo", "ok")).stdoutText()).isEqualTo("ok\n");
        }
    }

    private static ExecuteRequest exec(String... cmd) {
        return ExecuteRequest.newBuilder()
                .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of(cmd)))
                .build();
    }

    /** The status a call ended with: the library's calls throw GrpcCallException, raw stubs StatusRuntimeException. */
    private static Status.Code codeOf(Runnable call) {
        Throwable e = catchThrowable(call::run);
        if (e == null) {
            return Status.Code.OK;
        }
        if (e instanceof GrpcCallException g) {
            return g.code();
        }
        assertThat(e).isInstanceOf(StatusRuntimeException.class);
        return ((StatusRuntimeException) e).getStatus().getCode();
    }

    private static Stream start(StartRequest request, Duration deadline) {
        StartRecorder r = new StartRecorder();
        return new Stream(client.withStreamDeadline(deadline).start(request, r), r);
    }

    private static Stream startCat() throws Exception {
        Stream s = start(Command.of("cat").toStartRequest(), Duration.ofSeconds(120));
        Streams.pid(s.recorder(), Duration.ofSeconds(30));
        return s;
    }

    @Test
    void oversizedExecuteIsResourceExhausted() {
        String huge = "x".repeat(OVERSIZED);
        GrpcCallException e =
                catchThrowableOfType(GrpcCallException.class, () -> client.withCallTimeout(Duration.ofSeconds(60))
                        .execute(exec("echo", huge)));
        assertThat(e).as("Execute with a %d-byte argument", OVERSIZED).isNotNull();
        assertThat(e.code()).as("%s", e.status()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }

    @Test
    void oversizedWriteStdinIsResourceExhaustedAndTheProcessLivesOn() throws Exception {
        Stream cat = startCat();
        int pid = Streams.pid(cat.recorder(), Duration.ofSeconds(1));
        Status.Code code = codeOf(() -> client.withCallTimeout(Duration.ofSeconds(60))
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(pid)
                        .setInput(ByteString.copyFrom(new byte[OVERSIZED]))
                        .build()));
        assertThat(code).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        client.writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid)
                .setInput(ByteString.copyFromUtf8("still here\n"))
                .build());
        assertThat(cat.recorder().awaitStdoutContains("still here", Duration.ofSeconds(30)))
                .isTrue();
        cat.process().cancel();
    }

    @Test
    void unknownSignalValuesAreInvalidArgumentAndUnknownIdsNotFound() throws Exception {
        Stream cat = startCat();
        int pid = Streams.pid(cat.recorder(), Duration.ofSeconds(1));
        for (int value : new int[] {0, 1, 3, 99, -1, Integer.MAX_VALUE}) {
            assertThat(codeOf(() -> client.sendSignal(SendSignalRequest.newBuilder()
                            .setProcessId(pid)
                            .setSignalValue(value)
                            .build())))
                    .as("signal value %d to a live process", value)
                    .isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(codeOf(() -> client.sendSignal(SendSignalRequest.newBuilder()
                            .setProcessId(Integer.MAX_VALUE)
                            .setSignalValue(value)
                            .build())))
                    .as("signal value %d to an unknown id (id is checked first)", value)
                    .isEqualTo(Status.Code.NOT_FOUND);
        }
        assertThat(cat.recorder().isEnded())
                .as("cat survived the rejected signals")
                .isFalse();
        cat.process().cancel();
    }

    @Test
    void missingConfigsAndOneofs() throws Exception {
        assertThat(codeOf(() -> client.execute(ExecuteRequest.getDefaultInstance())))
                .as("Execute without config")
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        Stream noConfig = start(StartRequest.getDefaultInstance(), Duration.ofSeconds(30));
        assertThat(Streams.ended(noConfig.recorder(), Duration.ofSeconds(30)).getCode())
                .as("Start without config")
                .isEqualTo(Status.Code.INVALID_ARGUMENT);

        Stream cat = startCat();
        int pid = Streams.pid(cat.recorder(), Duration.ofSeconds(1));
        client.writeStdin(WriteStdinRequest.newBuilder().setProcessId(pid).build());
        client.writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid)
                .setInput(ByteString.copyFromUtf8("after empty oneof\n"))
                .build());
        assertThat(cat.recorder().await(r -> r.stdoutText().equals("after empty oneof\n"), Duration.ofSeconds(30)))
                .isTrue();
        assertThat(codeOf(() -> client.resizeTty(
                        ResizeTTYRequest.newBuilder().setProcessId(pid).build())))
                .as("ResizeTTY of a pipe process")
                .isIn(Status.Code.FAILED_PRECONDITION, Status.Code.INVALID_ARGUMENT);
        cat.process().cancel();

        Stream pty = start(
                StartRequest.newBuilder()
                        .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("stty", "size")))
                        .setPty(PTY.getDefaultInstance())
                        .build(),
                Duration.ofSeconds(60));
        assertThat(Streams.ended(pty.recorder(), Duration.ofSeconds(60))).isEqualTo(Status.OK);
        assertThat(pty.recorder().stdoutText().trim())
                .as("PTY with 0x0 size defaults to 80x24")
                .isEqualTo("24 80");
    }

    @Test
    void undecodablePayloadIsRejectedAndUnknownFieldsAreIgnored() throws Exception {
        MethodDescriptor<byte[], byte[]> raw = rawUnary("process.v1.ProcessService/Execute");
        StatusRuntimeException e = catchThrowableOfType(
                StatusRuntimeException.class,
                () -> ClientCalls.blockingUnaryCall(
                        client.channel(), raw, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), new byte[] {
                            (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff
                        }));
        assertThat(e).isNotNull();
        // grpc-java itself rejects an unparseable request before any daemon code runs, with
        // UNKNOWN "Application error processing RPC" (Go answers INTERNAL); either way, not OK.
        assertThat(e.getStatus().getCode())
                .as("%s", e.getStatus())
                .isIn(Status.Code.INTERNAL, Status.Code.INVALID_ARGUMENT, Status.Code.UNKNOWN);

        ByteArrayOutputStream withUnknown = new ByteArrayOutputStream();
        exec("echo", "tolerant").writeTo(withUnknown);
        CodedOutputStream extra = CodedOutputStream.newInstance(withUnknown);
        extra.writeUInt64(99, 12345);
        extra.writeString(100, "future field");
        extra.flush();
        byte[] reply = ClientCalls.blockingUnaryCall(
                client.channel(),
                raw,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                withUnknown.toByteArray());
        assertThat(ExecuteResponse.parseFrom(reply).getStdout().toStringUtf8()).isEqualTo("tolerant\n");
    }

    @Test
    void wrongMessageCountsOnAUnaryMethodAreRejected() throws Exception {
        MethodDescriptor<byte[], byte[]> bidi = rawUnary("process.v1.ProcessService/Execute").toBuilder()
                .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
                .build();
        byte[] one = exec("echo", "x").toByteArray();
        for (int count : new int[] {0, 2}) {
            Status.Code code = rawCallWith(bidi, one, count);
            assertThat(code)
                    .as("Execute called with %d request messages", count)
                    .isNotEqualTo(Status.Code.OK)
                    .isNotEqualTo(Status.Code.UNKNOWN);
        }
    }

    private static Status.Code rawCallWith(MethodDescriptor<byte[], byte[]> method, byte[] msg, int count)
            throws Exception {
        ClientCall<byte[], byte[]> call =
                client.channel().newCall(method, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
        java.util.concurrent.CompletableFuture<Status> done = new java.util.concurrent.CompletableFuture<>();
        call.start(
                new ClientCall.Listener<>() {
                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        done.complete(status);
                    }
                },
                new Metadata());
        call.request(10);
        for (int i = 0; i < count; i++) {
            call.sendMessage(msg);
        }
        call.halfClose();
        return done.get(30, TimeUnit.SECONDS).getCode();
    }

    @Test
    void unknownMethodIsUnimplemented() {
        assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(
                        client.channel(),
                        rawUnary("process.v1.ProcessService/Nope"),
                        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                        new byte[0])))
                .isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(
                        client.channel(),
                        rawUnary("no.such.Service/Call"),
                        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                        new byte[0])))
                .isEqualTo(Status.Code.UNIMPLEMENTED);
    }

    @Test
    void oversizedMetadataFailsTheCallNotTheDaemon() {
        try (SandboxdClient own = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase())) {
            Metadata md = new Metadata();
            md.put(Metadata.Key.of("x-big", Metadata.ASCII_STRING_MARSHALLER), "a".repeat(256 * 1024));
            Status.Code code = codeOf(() -> ProcessServiceGrpc.newBlockingStub(own.channel())
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .execute(exec("echo", "x")));
            assertThat(code)
                    .as("Execute with 256 KiB of metadata")
                    .isNotEqualTo(Status.Code.OK)
                    .isNotEqualTo(Status.Code.DEADLINE_EXCEEDED);
        }
        assertStillServes();
    }

    private static MethodDescriptor<byte[], byte[]> rawUnary(String fullName) {
        MethodDescriptor.Marshaller<byte[]> bytes = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(byte[] value) {
                return new ByteArrayInputStream(value);
            }

            @Override
            public byte[] parse(InputStream stream) {
                try {
                    return stream.readAllBytes();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(fullName)
                .setRequestMarshaller(bytes)
                .setResponseMarshaller(bytes)
                .build();
    }
}
