package io.sandboxd.reliability.it;

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
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.reliability.client.Grpc;
import io.sandboxd.reliability.client.StartStream;
import io.sandboxd.reliability.daemon.DaemonLauncher;
import io.sandboxd.reliability.daemon.RunningDaemon;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Malformed gRPC: oversized messages → RESOURCE_EXHAUSTED, unknown enum values, missing oneofs
 * and configs, undecodable and unknown-field payloads, too many or too few request messages on a
 * unary method, an unknown method, and oversized metadata. The daemon answers each and keeps serving.
 */
class MalformedGrpcIT {
    /** Well above grpc-java's default 4 MiB max inbound message, which the daemon is expected to keep. */
    private static final int OVERSIZED = Integer.getInteger("sandboxd.test.oversizedMessage", 20 << 20);
    private static RunningDaemon daemon;
    private static Grpc grpc;

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonLauncher.start(TestDaemons.spec("MalformedGrpcIT"));
        grpc = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty());
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (daemon != null) {
                assertStillServes();
            }
        } finally {
            if (grpc != null) {
                grpc.close();
            }
            if (daemon != null) {
                daemon.kill();
            }
        }
    }

    private static void assertStillServes() {
        try (Grpc fresh = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty())) {
            ExecuteResponse r = fresh.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).execute(exec("echo", "ok"));
            assertThat(r.getStdout().toStringUtf8()).isEqualTo("ok\n");
        }
    }

    private static ExecuteRequest exec(String... cmd) {
        return ExecuteRequest.newBuilder().setConfig(ProcessConfig.newBuilder().addAllCommand(List.of(cmd))).build();
    }

    private static Status.Code codeOf(Runnable call) {
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call::run);
        return e == null ? Status.Code.OK : e.getStatus().getCode();
    }

    private static StartStream startCat() throws Exception {
        StartStream s = StartStream.open(grpc, StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                .addCommand("cat")).build(), Duration.ofSeconds(120));
        s.awaitInit(Duration.ofSeconds(30));
        return s;
    }

    @Test
    void oversizedExecuteIsResourceExhausted() {
        String huge = "x".repeat(OVERSIZED);
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () ->
                grpc.blocking().withDeadlineAfter(60, TimeUnit.SECONDS).execute(exec("echo", huge)));
        assertThat(e).as("Execute with a %d-byte argument", OVERSIZED).isNotNull();
        assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }

    @Test
    void oversizedWriteStdinIsResourceExhaustedAndTheProcessLivesOn() throws Exception {
        StartStream cat = startCat();
        int pid = cat.awaitInit(Duration.ofSeconds(1));
        Status.Code code = codeOf(() -> grpc.blocking().withDeadlineAfter(60, TimeUnit.SECONDS).writeStdin(
                WriteStdinRequest.newBuilder().setProcessId(pid).setInput(ByteString.copyFrom(new byte[OVERSIZED])).build()));
        assertThat(code).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid).setInput(ByteString.copyFromUtf8("still here\n")).build());
        assertThat(cat.awaitStdout(o -> o.contains("still here"), Duration.ofSeconds(30))).isTrue();
        cat.cancel();
    }

    @Test
    void unknownSignalValuesAreInvalidArgumentAndUnknownIdsNotFound() throws Exception {
        StartStream cat = startCat();
        int pid = cat.awaitInit(Duration.ofSeconds(1));
        for (int value : new int[] {0, 1, 3, 99, -1, Integer.MAX_VALUE}) {
            assertThat(codeOf(() -> grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).sendSignal(
                    SendSignalRequest.newBuilder().setProcessId(pid).setSignalValue(value).build())))
                    .as("signal value %d to a live process", value).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(codeOf(() -> grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).sendSignal(
                    SendSignalRequest.newBuilder().setProcessId(Integer.MAX_VALUE).setSignalValue(value).build())))
                    .as("signal value %d to an unknown id (id is checked first)", value).isEqualTo(Status.Code.NOT_FOUND);
        }
        assertThat(cat.isDone()).as("cat survived the rejected signals").isFalse();
        cat.cancel();
    }

    @Test
    void missingConfigsAndOneofs() throws Exception {
        assertThat(codeOf(() -> grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).execute(ExecuteRequest.getDefaultInstance())))
                .as("Execute without config").isEqualTo(Status.Code.INVALID_ARGUMENT);
        StartStream noConfig = StartStream.open(grpc, StartRequest.getDefaultInstance(), Duration.ofSeconds(30));
        assertThat(noConfig.awaitDone(Duration.ofSeconds(30)).getCode()).as("Start without config").isEqualTo(Status.Code.INVALID_ARGUMENT);

        StartStream cat = startCat();
        int pid = cat.awaitInit(Duration.ofSeconds(1));
        grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).writeStdin(WriteStdinRequest.newBuilder().setProcessId(pid).build());
        grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid).setInput(ByteString.copyFromUtf8("after empty oneof\n")).build());
        assertThat(cat.awaitStdout(o -> o.equals("after empty oneof\n"), Duration.ofSeconds(30))).isTrue();
        assertThat(codeOf(() -> grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).resizeTTY(
                ResizeTTYRequest.newBuilder().setProcessId(pid).build()))).as("ResizeTTY of a pipe process")
                .isIn(Status.Code.FAILED_PRECONDITION, Status.Code.INVALID_ARGUMENT);
        cat.cancel();

        StartStream pty = StartStream.open(grpc, StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                .addAllCommand(List.of("stty", "size"))).setPty(PTY.getDefaultInstance()).build(), Duration.ofSeconds(60));
        assertThat(pty.awaitDone(Duration.ofSeconds(60))).isEqualTo(Status.OK);
        assertThat(pty.stdoutText().trim()).as("PTY with 0x0 size defaults to 80x24").isEqualTo("24 80");
    }

    @Test
    void undecodablePayloadIsRejectedAndUnknownFieldsAreIgnored() throws Exception {
        MethodDescriptor<byte[], byte[]> raw = rawUnary("process.v1.ProcessService/Execute");
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () ->
                ClientCalls.blockingUnaryCall(grpc.channel(), raw, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                        new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}));
        assertThat(e).isNotNull();
        // grpc-java itself rejects an unparseable request before any daemon code runs, with
        // UNKNOWN "Application error processing RPC" (Go answers INTERNAL); either way, not OK.
        assertThat(e.getStatus().getCode()).as("%s", e.getStatus())
                .isIn(Status.Code.INTERNAL, Status.Code.INVALID_ARGUMENT, Status.Code.UNKNOWN);

        ByteArrayOutputStream withUnknown = new ByteArrayOutputStream();
        exec("echo", "tolerant").writeTo(withUnknown);
        CodedOutputStream extra = CodedOutputStream.newInstance(withUnknown);
        extra.writeUInt64(99, 12345);
        extra.writeString(100, "future field");
        extra.flush();
        byte[] reply = ClientCalls.blockingUnaryCall(grpc.channel(), raw,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), withUnknown.toByteArray());
        assertThat(ExecuteResponse.parseFrom(reply).getStdout().toStringUtf8()).isEqualTo("tolerant\n");
    }

    @Test
    void wrongMessageCountsOnAUnaryMethodAreRejected() throws Exception {
        MethodDescriptor<byte[], byte[]> bidi = rawUnary("process.v1.ProcessService/Execute").toBuilder()
                .setType(MethodDescriptor.MethodType.BIDI_STREAMING).build();
        byte[] one = exec("echo", "x").toByteArray();
        for (int count : new int[] {0, 2}) {
            Status.Code code = rawCallWith(bidi, one, count);
            assertThat(code).as("Execute called with %d request messages", count).isNotEqualTo(Status.Code.OK)
                    .isNotEqualTo(Status.Code.UNKNOWN);
        }
    }

    private static Status.Code rawCallWith(MethodDescriptor<byte[], byte[]> method, byte[] msg, int count) throws Exception {
        ClientCall<byte[], byte[]> call = grpc.channel().newCall(method, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
        java.util.concurrent.CompletableFuture<Status> done = new java.util.concurrent.CompletableFuture<>();
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onClose(Status status, Metadata trailers) {
                done.complete(status);
            }
        }, new Metadata());
        call.request(10);
        for (int i = 0; i < count; i++) {
            call.sendMessage(msg);
        }
        call.halfClose();
        return done.get(30, TimeUnit.SECONDS).getCode();
    }

    @Test
    void unknownMethodIsUnimplemented() {
        assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(grpc.channel(), rawUnary("process.v1.ProcessService/Nope"),
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), new byte[0])))
                .isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(grpc.channel(), rawUnary("no.such.Service/Call"),
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), new byte[0])))
                .isEqualTo(Status.Code.UNIMPLEMENTED);
    }

    @Test
    void oversizedMetadataFailsTheCallNotTheDaemon() {
        try (Grpc own = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty())) {
            Metadata md = new Metadata();
            md.put(Metadata.Key.of("x-big", Metadata.ASCII_STRING_MARSHALLER), "a".repeat(256 * 1024));
            Status.Code code = codeOf(() -> own.blocking().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
                    .withDeadlineAfter(30, TimeUnit.SECONDS).execute(exec("echo", "x")));
            assertThat(code).as("Execute with 256 KiB of metadata").isNotEqualTo(Status.Code.OK)
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
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(fullName).setRequestMarshaller(bytes).setResponseMarshaller(bytes).build();
    }
}
