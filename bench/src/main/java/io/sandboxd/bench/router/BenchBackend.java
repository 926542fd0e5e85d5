package io.sandboxd.bench.router;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** A minimal keep-alive HTTP backend on loopback: answers every request with a small fixed body. */
final class BenchBackend implements AutoCloseable {
    private static final ByteBuf BODY =
            Unpooled.unreleasableBuffer(Unpooled.copiedBuffer("{\"ok\":true}\n", StandardCharsets.US_ASCII));
    private final Channel channel;

    BenchBackend(EventLoopGroup group) throws InterruptedException {
        channel = new ServerBootstrap()
                .group(group)
                .channel(Transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(new HttpServerCodec())
                                .addLast(new HttpObjectAggregator(1 << 20))
                                .addLast(new SimpleChannelInboundHandler<FullHttpRequest>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                                        FullHttpResponse r = new DefaultFullHttpResponse(
                                                HttpVersion.HTTP_1_1, HttpResponseStatus.OK, BODY.duplicate());
                                        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                                        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.readableBytes());
                                        HttpUtil.setKeepAlive(r, HttpUtil.isKeepAlive(req));
                                        ctx.writeAndFlush(r);
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        // The load generator closes its connections with requests in flight (reset by
                                        // peer).
                                        ctx.close();
                                    }
                                });
                    }
                })
                .bind("127.0.0.1", 0)
                .sync()
                .channel();
    }

    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
