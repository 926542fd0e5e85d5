package io.sandboxd.conformance.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.Empty;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
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

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/** The suite's gRPC side: ProcessService calls that return status and trailers instead of throwing. */
public final class ProcessClient implements AutoCloseable {
    public static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

    private final ManagedChannel channel;
    private final Channel authed;
    private final String target;

    public ProcessClient(String target, String token) {
        this.target = target;
        this.channel = NettyChannelBuilder.forTarget(target).usePlaintext()
                .maxInboundMessageSize(256 * 1024 * 1024).maxInboundMetadataSize(64 * 1024).build();
        this.authed = token == null ? channel : ClientInterceptors.intercept(channel, bearer(token));
    }

    public String target() {
        return target;
    }

    /** The channel with the suite's token (if any). */
    public Channel channel() {
        return authed;
    }

    /** The channel without any token, for auth checks. */
    public Channel rawChannel() {
        return channel;
    }

    public static ClientInterceptor bearer(String token) {
        return new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
                return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                    @Override
                    public void start(Listener<R> listener, Metadata headers) {
                        headers.put(AUTHORIZATION, "Bearer " + token);
                        super.start(listener, headers);
                    }
                };
            }
        };
    }

    public static ProcessConfig config(String... command) {
        return ProcessConfig.newBuilder().addAllCommand(java.util.List.of(command)).build();
    }

    public static ProcessConfig sh(String script) {
        return config("sh", "-c", script);
    }

    public static ProcessConfig sh(String script, String cwd, Map<String, String> env) {
        ProcessConfig.Builder b = ProcessConfig.newBuilder().addCommand("sh").addCommand("-c").addCommand(script);
        if (cwd != null) {
            b.setCwd(cwd);
        }
        if (env != null) {
            b.putAllEnvVars(env);
        }
        return b.build();
    }

    public GrpcResult<ExecuteResponse> execute(ProcessConfig config, Duration deadline) {
        return unary(stub -> stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                .execute(ExecuteRequest.newBuilder().setConfig(config).build()));
    }

    public GrpcResult<ExecuteResponse> execute(ExecuteRequest request, Duration deadline) {
        return unary(stub -> stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS).execute(request));
    }

    public GrpcResult<ExecuteResponse> execute(ProcessConfig config) {
        return execute(config, DEFAULT_DEADLINE);
    }

    public StartStream start(ProcessConfig config, PTY pty, Duration deadline) {
        StartRequest.Builder r = StartRequest.newBuilder().setConfig(config);
        if (pty != null) {
            r.setPty(pty);
        }
        return start(r.build(), deadline);
    }

    public StartStream start(StartRequest request, Duration deadline) {
        StartStream stream = new StartStream();
        ProcessServiceGrpc.newStub(authed).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                .start(request, stream);
        return stream;
    }

    public StartStream start(ProcessConfig config) {
        return start(config, null, Duration.ofSeconds(60));
    }

    public GrpcResult<?> write(int pid, byte[] input) {
        return write(WriteStdinRequest.newBuilder().setProcessId(pid).setInput(ByteString.copyFrom(input)).build(), DEFAULT_DEADLINE);
    }

    public GrpcResult<?> eof(int pid) {
        return write(WriteStdinRequest.newBuilder().setProcessId(pid).setEof(Empty.getDefaultInstance()).build(), DEFAULT_DEADLINE);
    }

    public GrpcResult<?> write(WriteStdinRequest request, Duration deadline) {
        return unary(stub -> stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS).writeStdin(request));
    }

    /** Sends a raw signal number, so invalid values can be sent too. */
    public GrpcResult<?> signal(int pid, int signal) {
        return unary(stub -> stub.withDeadlineAfter(DEFAULT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                .sendSignal(SendSignalRequest.newBuilder().setProcessId(pid).setSignalValue(signal).build()));
    }

    public GrpcResult<?> resize(int pid, int cols, int rows) {
        return unary(stub -> stub.withDeadlineAfter(DEFAULT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                .resizeTTY(ResizeTTYRequest.newBuilder().setProcessId(pid).setCols(cols).setRows(rows).build()));
    }

    private <T> GrpcResult<T> unary(Function<ProcessServiceGrpc.ProcessServiceBlockingStub, T> call) {
        AtomicReference<Metadata> headers = new AtomicReference<>();
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        ProcessServiceGrpc.ProcessServiceBlockingStub stub = ProcessServiceGrpc.newBlockingStub(authed)
                .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
        try {
            T value = call.apply(stub);
            return new GrpcResult<>(value, Status.OK, trailers.get() == null ? new Metadata() : trailers.get());
        } catch (StatusRuntimeException e) {
            Metadata t = e.getTrailers() != null ? e.getTrailers() : trailers.get();
            return new GrpcResult<>(null, e.getStatus(), t == null ? new Metadata() : t);
        }
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
