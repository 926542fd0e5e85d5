package io.sandboxd.bench.floor;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;

/** The floors' gRPC listener, built like the daemon's GrpcServer minus its interceptors and extra services. */
final class FloorGrpc {
    private FloorGrpc() {}

    /** An event-loop group of the daemon's transport: native epoll where available. */
    static EventLoopGroup group(int threads) {
        IoHandlerFactory f = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, f);
    }

    static Class<? extends io.netty.channel.ServerChannel> serverChannel() {
        return Epoll.isAvailable() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    static Server start(FloorFlags flags, EventLoopGroup boss, EventLoopGroup workers) throws IOException {
        return NettyServerBuilder.forAddress(new InetSocketAddress(flags.host(), flags.grpcPort()))
                .channelType(serverChannel())
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .directExecutor()
                // as the daemon: unpooled buffers (its pooled arenas cost ~8 MiB of idle RSS)
                .withChildOption(ChannelOption.ALLOCATOR, UnpooledByteBufAllocator.DEFAULT)
                .addService(new NoopProcessService())
                .build()
                .start();
    }
}
