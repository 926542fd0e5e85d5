package io.sandboxd.router.grpc;

import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.client.SandboxdClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The project's client library through the router: a channel to the router that carries the routing
 * headers as gRPC metadata on every call (what any gRPC caller of the router does), and clients on it.
 */
final class ProcessCalls {
    private ProcessCalls() {}

    /** The router's routing headers as gRPC metadata. */
    static ClientInterceptor route(Map<String, String> headers) {
        Metadata md = new Metadata();
        headers.forEach((k, v) -> md.put(Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER), v));
        return MetadataUtils.newAttachHeadersInterceptor(md);
    }

    /** A channel to the router at {@code routerPort} whose calls carry {@code routing}. */
    static ManagedChannel routerChannel(int routerPort, Map<String, String> routing) {
        return NettyChannelBuilder.forAddress("127.0.0.1", routerPort)
                .usePlaintext()
                .intercept(route(routing))
                .build();
    }

    /** A channel to the router whose calls go to the daemon's gRPC port on loopback (X-Sandbox-Pod-IP). */
    static ManagedChannel routerChannel(int routerPort, int daemonPort) {
        return routerChannel(
                routerPort,
                Map.of(
                        "x-sandbox-id",
                        "sb",
                        "x-sandbox-pod-ip",
                        "127.0.0.1",
                        "x-sandbox-port",
                        Integer.toString(daemonPort)));
    }

    /** The client library on {@code channel} (which the caller shuts down), 60 s per unary call. */
    static SandboxdClient client(ManagedChannel channel, String target) {
        return SandboxdClient.builder()
                .grpcTarget(target)
                .channel(channel)
                .callTimeout(Duration.ofSeconds(60))
                .build();
    }

    /** Whether {@code pid} runs; a zombie awaiting its reaper is dead for this purpose. */
    static boolean alive(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"), StandardCharsets.UTF_8);
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
