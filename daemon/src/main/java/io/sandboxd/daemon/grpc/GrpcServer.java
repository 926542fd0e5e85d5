package io.sandboxd.daemon.grpc;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.daemon.code.CodeContexts;
import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.config.ListenerContext;
import io.sandboxd.daemon.process.ProcessCore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC side of the daemon on {@code --grpc-port} (runtime-contract §1): ProcessService, the
 * extended services (durable processes §4.1, code contexts §4.4), the standard
 * health service and server reflection (v1 and v1alpha), behind the interceptors for logging and
 * metrics, the shutdown gate and auth. Netty with the epoll transport when available. An adapter
 * only: the process core it serves is built, handed over and closed by the daemon.
 */
public final class GrpcServer {
    /** grpc-java's default, made explicit: the largest request message, e.g. one WriteStdin. */
    public static final int MAX_INBOUND_MESSAGE_BYTES = 4 * 1024 * 1024;
    /** grpc-java's default, made explicit: the request metadata (HTTP/2 header list) of one call. */
    static final int MAX_INBOUND_METADATA_BYTES = 8 * 1024;
    /**
     * HTTP/2's own default initial window (grpc-java's is 1 MiB): what a call waiting for an
     * {@link InboundMessageGate} slot may have received. A 4 MiB WriteStdin on loopback takes
     * ~128 window updates, a few milliseconds.
     */
    static final int STREAM_WINDOW_BYTES = 64 * 1024;

    private final DaemonConfig config;
    private final ListenerContext listeners;
    private final ProcessCore processes;
    private final java.time.Duration attachHeartbeat;
    private final CodeContexts code;
    private DurableServiceImpl durable;
    private final HealthStatusManager health = new HealthStatusManager();
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Server server;

    private final ExecutorService ptySpawns = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sandboxd-pty-spawn");
        t.setDaemon(true);
        return t;
    });

    public GrpcServer(DaemonConfig config, ListenerContext listeners, ProcessCore processes) {
        this(config, listeners, processes, java.time.Duration.ofSeconds(15), null);
    }

    /**
     * @param attachHeartbeat how long an attach stream of the durable service may stay silent
     * @param code            the code contexts to serve, or null for none
     */
    public GrpcServer(
            DaemonConfig config,
            ListenerContext listeners,
            ProcessCore processes,
            java.time.Duration attachHeartbeat,
            CodeContexts code) {
        this.attachHeartbeat = attachHeartbeat;
        this.code = code;
        this.config = config;
        this.listeners = listeners;
        this.processes = processes;
    }

    public void start() throws IOException {
        NettyServerBuilder b =
                NettyServerBuilder.forAddress(new InetSocketAddress(config.listenHost(), config.grpcPort()));
        if (Epoll.isAvailable()) {
            boss = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
            workers = new MultiThreadIoEventLoopGroup(0, EpollIoHandler.newFactory());
            b.channelType(EpollServerSocketChannel.class);
        } else {
            boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
            workers = new MultiThreadIoEventLoopGroup(0, NioIoHandler.newFactory());
            b.channelType(NioServerSocketChannel.class);
        }
        b.bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                // Handlers run on the event loops (see ProcessServiceImpl): -40..80 us per call.
                .directExecutor()
                // Unpooled: a buffer's memory is freed when it is released. grpc-java's own pooled
                // allocator gives every arena a 2 MiB chunk that ByteBuffer.allocateDirect zeroes
                // (one Execute left ~8 MiB more RSS at idle); Netty 4.2's adaptive allocator keeps
                // the chunks a burst needed (NMT: +4.3 MiB of direct memory with 500 Start streams
                // live, +8 MiB more once they ended). Unpooled: RSS with 500 live streams 96.8 ->
                // 91.3 MiB; daemon CPU per GiB streamed the same within the noise (bench, issue 22).
                .withChildOption(ChannelOption.ALLOCATOR, UnpooledByteBufAllocator.DEFAULT)
                // HTTP/2 MAX_CONCURRENT_STREAMS: a client queues calls beyond it on its side
                .maxConcurrentCallsPerConnection(config.grpcMaxConcurrentCalls())
                // stated, not defaulted: the stdin budget (StdinBudget) and the docs rely on 4 MiB
                .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
                .maxInboundMetadataSize(MAX_INBOUND_METADATA_BYTES)
                .flowControlWindow(STREAM_WINDOW_BYTES)
                .addTransportFilter(InboundMessageGate.perConnection())
                .addService(new ProcessServiceImpl(processes, config.executeOutputLimit(), ptySpawns))
                .addService(health.getHealthService())
                .addService(ProtoReflectionServiceV1.newInstance())
                .addService(ProtoReflectionService.newInstance())
                // Run in reverse order of addition: CallObserver sees every call first.
                .intercept(new InboundMessageGate())
                .intercept(new ResponseTrailers())
                .intercept(new AuthInterceptor(listeners.accessToken()))
                .intercept(new ServingGate(listeners.state()))
                .intercept(new CallObserver(
                        listeners.requestLog(), listeners.metrics().registry()));
        if (processes.durable() != null) {
            durable = new DurableServiceImpl(processes.durable(), ptySpawns, attachHeartbeat);
            b.addService(durable);
        }
        if (code != null) {
            b.addService(new CodeServiceImpl(code));
        }
        server = b.build().start();
        health.setStatus("", ServingStatus.SERVING);
        health.setStatus(ProcessServiceGrpc.SERVICE_NAME, ServingStatus.SERVING);
    }

    public int port() {
        return server == null ? -1 : server.getPort();
    }

    /**
     * Health says NOT_SERVING from now on, for good. New calls are already refused by the gate
     * once the daemon state flipped (runtime-contract §1.8).
     */
    public void reportNotServing() {
        health.enterTerminalState();
    }

    /**
     * Closes the listener: calls still open may finish until {@code drainDeadlineNanos}, are
     * cancelled then, and the event loops are released by {@code deadlineNanos}.
     */
    public void stop(long drainDeadlineNanos, long deadlineNanos) {
        if (server != null) {
            server.shutdown();
            try {
                if (!server.awaitTermination(
                        Math.max(0, drainDeadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    server.shutdownNow();
                    server.awaitTermination(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                server.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        }
        ptySpawns.shutdownNow();
        if (durable != null) {
            durable.close();
        }
    }
}
