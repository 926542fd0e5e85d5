package io.sandboxd.bench.floor;

import io.grpc.Server;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;

/**
 * The Netty-only floor (issue 22): REST {@code /v1/health} on netty-codec-http and the daemon's
 * gRPC API (no-op, {@link NoopProcessService}) on grpc-netty, both on one epoll event-loop group.
 * What a daemon without Jetty/Javalin could at best start and idle at.
 */
public final class NettyFloor {
    private NettyFloor() {}

    public static void main(String[] args) throws Exception {
        FloorFlags flags = FloorFlags.parse(args);
        EventLoopGroup loops = FloorGrpc.group(0);
        HealthHandler health = new HealthHandler();
        new ServerBootstrap()
                .group(loops)
                .channel(FloorGrpc.serverChannel())
                .childOption(ChannelOption.ALLOCATOR, UnpooledByteBufAllocator.DEFAULT)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), health);
                    }
                })
                .bind(flags.host(), flags.restPort())
                .sync();
        Server grpc = FloorGrpc.start(flags, loops, loops);
        grpc.awaitTermination(); // SIGTERM ends the JVM (and writes a training run's archive)
    }
}
