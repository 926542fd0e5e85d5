package io.sandboxd.daemon.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.sandboxd.testkit.RunningDaemon;
import java.util.concurrent.TimeUnit;

/**
 * A plaintext grpc-java channel to a daemon started by testkit ({@link RunningDaemon}, which is
 * JDK-only and knows no gRPC); 16 MiB inbound messages, like {@link GrpcDaemon}'s. Close it before
 * the daemon (declare it after the daemon in the same try).
 */
final class DaemonChannel implements AutoCloseable {
    final ManagedChannel channel;

    private DaemonChannel(ManagedChannel channel) {
        this.channel = channel;
    }

    static DaemonChannel to(RunningDaemon d) {
        return new DaemonChannel(NettyChannelBuilder.forTarget(d.grpcTarget())
                .usePlaintext()
                .maxInboundMessageSize(16 * 1024 * 1024)
                .build());
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
    }
}
