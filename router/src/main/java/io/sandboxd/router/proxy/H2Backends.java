package io.sandboxd.router.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The HTTP/2 cleartext (prior knowledge) connections one client connection has to Pods, one per
 * vetted address, on the client connection's event loop: a gRPC channel's many calls share one
 * backend connection as they share the client's. Closed with the client connection.
 */
final class H2Backends {
    private final RouterServer core;
    private final Map<InetSocketAddress, ChannelFuture> connections = new HashMap<>();

    H2Backends(RouterServer core) {
        this.core = core;
    }

    /**
     * Opens a stream to {@code addr} (an address the dial policy returned: already resolved, never
     * looked up again), connecting first if needed. A connection that refuses new streams (GOAWAY,
     * closed) is dropped and one new connection is tried.
     */
    CompletableFuture<Http2StreamChannel> openStream(EventLoop loop, InetSocketAddress addr, ChannelHandler handler) {
        CompletableFuture<Http2StreamChannel> out = new CompletableFuture<>();
        open(loop, addr, handler, out, true);
        return out;
    }

    private void open(
            EventLoop loop,
            InetSocketAddress addr,
            ChannelHandler handler,
            CompletableFuture<Http2StreamChannel> out,
            boolean mayRetry) {
        ChannelFuture cf = connections.get(addr);
        if (cf == null || (cf.isDone() && !cf.channel().isActive())) {
            cf = connect(loop, addr);
            connections.put(addr, cf);
        }
        ChannelFuture conn = cf;
        conn.addListener(f -> {
            if (!f.isSuccess()) {
                connections.remove(addr, conn);
                out.completeExceptionally(f.cause());
                return;
            }
            new Http2StreamChannelBootstrap(conn.channel())
                    .option(ChannelOption.AUTO_READ, false)
                    .handler(handler)
                    .open()
                    .addListener((Future<Http2StreamChannel> s) -> {
                        if (s.isSuccess()) {
                            out.complete(s.getNow());
                        } else if (mayRetry) {
                            connections.remove(addr, conn);
                            conn.channel().close();
                            open(loop, addr, handler, out, false);
                        } else {
                            out.completeExceptionally(s.cause());
                        }
                    });
        });
    }

    private ChannelFuture connect(EventLoop loop, InetSocketAddress addr) {
        Bootstrap b = core.backendBootstrap
                .clone(loop)
                // The connection itself must always be read (SETTINGS, PING, WINDOW_UPDATE, every stream's
                // frames); each stream's channel reads only when its peer can take the bytes.
                .option(ChannelOption.AUTO_READ, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline()
                                .addLast(
                                        "h2",
                                        Http2FrameCodecBuilder.forClient()
                                                .initialSettings(H2Settings.client())
                                                .build())
                                .addLast("streams", new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
                    }
                });
        return b.connect(addr);
    }

    void closeAll() {
        for (ChannelFuture cf : connections.values()) {
            cf.channel().close();
        }
        connections.clear();
    }
}
