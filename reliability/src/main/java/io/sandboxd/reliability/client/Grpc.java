package io.sandboxd.reliability.client;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** A plaintext channel to the daemon's ProcessService, with the bearer token attached if any. */
public final class Grpc implements AutoCloseable {
    public static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    private final ManagedChannel channel;
    private final Optional<String> token;

    public Grpc(String host, int port, Optional<String> token) {
        this.channel = NettyChannelBuilder.forAddress(host, port).usePlaintext()
                .maxInboundMessageSize(16 * 1024 * 1024).build();
        this.token = token;
    }

    /** Parses {@code host:port}. */
    public static Grpc connect(String hostPort, Optional<String> token) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("expected HOST:PORT, got " + hostPort);
        }
        return new Grpc(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)), token);
    }

    public ManagedChannel channel() {
        return channel;
    }

    public ProcessServiceGrpc.ProcessServiceBlockingStub blocking() {
        return withToken(ProcessServiceGrpc.newBlockingStub(channel));
    }

    public ProcessServiceGrpc.ProcessServiceStub async() {
        return withToken(ProcessServiceGrpc.newStub(channel));
    }

    private <S extends io.grpc.stub.AbstractStub<S>> S withToken(S stub) {
        if (token.isEmpty()) {
            return stub;
        }
        Metadata md = new Metadata();
        md.put(AUTHORIZATION, "Bearer " + token.get());
        return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
