package io.sandboxd.router.grpc;

import io.grpc.Channel;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Helpers for the gRPC-through-the-router tests: channels, routing metadata, request builders, a Start collector. */
final class ProcessCalls {
    private ProcessCalls() {}

    static ManagedChannel channel(int port) {
        return NettyChannelBuilder.forAddress("127.0.0.1", port)
                .usePlaintext()
                .maxInboundMessageSize(16 * 1024 * 1024)
                .build();
    }

    /** The router's routing headers as gRPC metadata. */
    static ClientInterceptor route(Map<String, String> headers) {
        Metadata md = new Metadata();
        headers.forEach((k, v) -> md.put(Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER), v));
        return MetadataUtils.newAttachHeadersInterceptor(md);
    }

    static Channel routed(ManagedChannel ch, int daemonPort) {
        return ClientInterceptors.intercept(
                ch,
                route(Map.of(
                        "x-sandbox-id",
                        "sb",
                        "x-sandbox-pod-ip",
                        "127.0.0.1",
                        "x-sandbox-port",
                        Integer.toString(daemonPort))));
    }

    static ProcessConfig cmd(String... argv) {
        return ProcessConfig.newBuilder().addAllCommand(List.of(argv)).build();
    }

    static ExecuteRequest execute(String... argv) {
        return ExecuteRequest.newBuilder().setConfig(cmd(argv)).build();
    }

    static StartRequest start(String... argv) {
        return StartRequest.newBuilder().setConfig(cmd(argv)).build();
    }

    /** Collects a Start stream: the pid, stdout/stderr, the exit code and how the call ended. */
    static final class StartCollector implements StreamObserver<StartResponse> {
        final CompletableFuture<Integer> pid = new CompletableFuture<>();
        final CompletableFuture<Integer> exit = new CompletableFuture<>();
        final CompletableFuture<Throwable> done = new CompletableFuture<>(); // null cause: completed OK
        final ByteArrayOutputStream stdout = new ByteArrayOutputStream();

        @Override
        public synchronized void onNext(StartResponse r) {
            switch (r.getEventCase()) {
                case INIT -> pid.complete(r.getInit().getProcessId());
                case STDOUT -> {
                    stdout.writeBytes(r.getStdout().toByteArray());
                }
                case EXIT -> exit.complete(r.getExit().getExitCode());
                default -> {}
            }
        }

        synchronized String stdoutText() {
            return stdout.toString(java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public void onError(Throwable t) {
            done.complete(t);
            pid.completeExceptionally(t);
            exit.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
            done.complete(null);
        }
    }
}
