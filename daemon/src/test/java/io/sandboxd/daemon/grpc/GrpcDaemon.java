package io.sandboxd.daemon.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.daemon.cli.Daemon;
import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.logging.RequestLog;
import io.sandboxd.daemon.metrics.Metrics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** A real daemon on loopback (ephemeral ports) and a real grpc-java client channel to it. */
final class GrpcDaemon implements AutoCloseable {
    final Daemon daemon;
    final Metrics metrics;
    final ManagedChannel channel;
    final Path root;

    private GrpcDaemon(Daemon daemon, Metrics metrics, ManagedChannel channel, Path root) {
        this.daemon = daemon;
        this.metrics = metrics;
        this.channel = channel;
        this.root = root;
    }

    static GrpcDaemon start(Path root) throws IOException {
        return start(root, UnaryOperator.identity());
    }

    static GrpcDaemon start(Path root, UnaryOperator<DaemonConfig> tweak) throws IOException {
        return start(root, tweak, TestConfig.silentLog());
    }

    static GrpcDaemon start(Path root, UnaryOperator<DaemonConfig> tweak, RequestLog log) throws IOException {
        Path real = root.toRealPath();
        Metrics metrics = new Metrics();
        Daemon d = new Daemon(tweak.apply(TestConfig.forRoot(real)), metrics, log);
        d.start();
        ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", d.grpcPort())
                .usePlaintext()
                .maxInboundMessageSize(16 * 1024 * 1024)
                .build();
        return new GrpcDaemon(d, metrics, ch, real);
    }

    ProcessServiceGrpc.ProcessServiceBlockingStub blocking() {
        return ProcessServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    ProcessServiceGrpc.ProcessServiceStub async() {
        return ProcessServiceGrpc.newStub(channel);
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        daemon.shutdown();
        channel.awaitTermination(5, TimeUnit.SECONDS);
    }
}
