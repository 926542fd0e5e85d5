package io.sandboxd.bench.router;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The Netty transport of the load generator and the backend: native epoll on Linux (as the router
 * itself uses there), NIO elsewhere.
 */
final class Transport {
    private Transport() {}

    static boolean epoll() {
        return Epoll.isAvailable();
    }

    static EventLoopGroup group(int threads, String name) {
        IoHandlerFactory f = epoll() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), f);
    }

    static Class<? extends ServerChannel> serverChannel() {
        return epoll() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    static Class<? extends SocketChannel> clientChannel() {
        return epoll() ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
