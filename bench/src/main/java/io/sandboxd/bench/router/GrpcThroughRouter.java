package io.sandboxd.bench.router;

import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.client.Command;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartRecorder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;

/**
 * ProcessService calls straight to the daemon and through the router, with the project's client on
 * one channel each (the router's routing headers as gRPC metadata, as any gRPC caller sends them):
 * sequential {@code Execute(["true"])} latency and the rate of one large {@code Start} stream.
 */
final class GrpcThroughRouter implements AutoCloseable {
    /** Percentiles of one set of sequential calls, in ms. */
    record Latency(int calls, double p50, double p99) {
        static Latency of(double[] ms) {
            double[] s = ms.clone();
            Arrays.sort(s);
            return new Latency(s.length, rank(s, 0.50), rank(s, 0.99));
        }

        private static double rank(double[] sorted, double q) {
            int i = (int) Math.ceil(q * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
        }
    }

    private final ManagedChannel directChannel;
    private final ManagedChannel routedChannel;
    final SandboxdClient direct;
    final SandboxdClient routed;

    GrpcThroughRouter(InetSocketAddress router, InetSocketAddress daemon) {
        Metadata routing = new Metadata();
        routing.put(key("x-sandbox-id"), "bench");
        routing.put(key("x-sandbox-pod-ip"), daemon.getAddress().getHostAddress());
        routing.put(key("x-sandbox-port"), Integer.toString(daemon.getPort()));
        ClientInterceptor route = MetadataUtils.newAttachHeadersInterceptor(routing);
        directChannel = channel(daemon).build();
        routedChannel = channel(router).intercept(route).build();
        direct = client(directChannel, daemon);
        routed = client(routedChannel, router);
    }

    private static Metadata.Key<String> key(String name) {
        return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
    }

    private static NettyChannelBuilder channel(InetSocketAddress a) {
        return NettyChannelBuilder.forAddress(a.getHostString(), a.getPort())
                .usePlaintext()
                .maxInboundMessageSize(16 << 20);
    }

    private static SandboxdClient client(ManagedChannel ch, InetSocketAddress a) {
        return SandboxdClient.builder()
                .grpcTarget(a.getHostString() + ":" + a.getPort())
                .channel(ch)
                .callTimeout(Duration.ofSeconds(60))
                .build();
    }

    private static final ExecuteRequest TRUE = Command.of("true").toExecuteRequest();

    /** {@code n} sequential Execute(["true"]), untimed. */
    static void warmUp(SandboxdClient c, int n) {
        for (int i = 0; i < n; i++) {
            check(c.execute(TRUE));
        }
    }

    /**
     * {@code n} sequential Execute(["true"]) on each client, the two alternating call by call (which
     * goes first flips every pair), so both see the same moments of a noisy machine; each result is
     * checked outside the timing. Returns {@code a}'s latencies, then {@code b}'s.
     */
    static Latency[] executeLatency(SandboxdClient a, SandboxdClient b, int n) {
        double[] msA = new double[n];
        double[] msB = new double[n];
        for (int i = 0; i < n; i++) {
            if (i % 2 == 0) {
                msA[i] = timedExecute(a);
                msB[i] = timedExecute(b);
            } else {
                msB[i] = timedExecute(b);
                msA[i] = timedExecute(a);
            }
        }
        return new Latency[] {Latency.of(msA), Latency.of(msB)};
    }

    private static double timedExecute(SandboxdClient c) {
        long t = System.nanoTime();
        ExecResult r = c.execute(TRUE);
        double ms = (System.nanoTime() - t) / 1e6;
        check(r);
        return ms;
    }

    private static void check(ExecResult r) {
        if (r.exitCode() != 0) {
            throw new IllegalStateException("Execute([\"true\"]) exited " + r.exitCode());
        }
    }

    /** MB/s of a Start({@code head -c bytes /dev/zero}) stream as the client received it; every byte counted. */
    static double startMbPerSecond(SandboxdClient c, long bytes) {
        StartRecorder r = StartRecorder.countingOnly();
        long t = System.nanoTime();
        RemoteProcess p = c.withStreamDeadline(Duration.ofMinutes(10))
                .start(Command.of("head", "-c", Long.toString(bytes), "/dev/zero"), r);
        if (!p.awaitEnd(Duration.ofMinutes(10)) || !r.awaitEnd(Duration.ofSeconds(5))) {
            p.cancel();
            throw new IllegalStateException("Start stream of " + bytes + " bytes did not end within 10 minutes");
        }
        double s = (System.nanoTime() - t) / 1e9;
        if (!r.status().isOk()
                || r.stdoutBytes() != bytes
                || !Integer.valueOf(0).equals(r.exitCode())) {
            throw new IllegalStateException("Start stream: got " + r.stdoutBytes() + " of " + bytes + " bytes, exit "
                    + r.exitCode() + ", status " + r.status());
        }
        return bytes / 1e6 / s;
    }

    @Override
    public void close() {
        direct.close();
        routed.close();
        directChannel.shutdownNow();
        routedChannel.shutdownNow();
    }
}
