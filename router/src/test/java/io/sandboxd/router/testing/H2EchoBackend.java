package io.sandboxd.router.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import io.sandboxd.router.proxy.Transport;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plain HTTP/2 cleartext (prior knowledge) server on 127.0.0.1 (Netty): answers every stream with
 * {@code 200}, a body "METHOD PATH BYTES" (BYTES = request body size) and records each request's
 * headers, how many requests ended cleanly (END_STREAM) and how many streams were reset.
 */
public final class H2EchoBackend implements AutoCloseable {
    private final EventLoopGroup group = Transport.group(1, "h2-backend");
    private final Channel channel;
    public final List<Http2Headers> requests = new CopyOnWriteArrayList<>();
    public final AtomicInteger completed = new AtomicInteger();
    public final AtomicInteger resets = new AtomicInteger();

    public H2EchoBackend() throws InterruptedException {
        channel = new ServerBootstrap()
                .group(group)
                .channel(Transport.serverChannel())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(
                                        Http2FrameCodecBuilder.forServer().build(),
                                        new Http2MultiplexHandler(new ChannelInitializer<Channel>() {
                                            @Override
                                            protected void initChannel(Channel stream) {
                                                stream.pipeline().addLast(new Echo());
                                            }
                                        }));
                    }
                })
                .bind("127.0.0.1", 0)
                .sync()
                .channel();
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    private final class Echo extends ChannelInboundHandlerAdapter {
        private Http2Headers head;
        private long bytes;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            boolean end = false;
            if (msg instanceof Http2HeadersFrame h) {
                if (head == null) {
                    head = h.headers();
                    requests.add(head);
                }
                end = h.isEndStream();
            } else if (msg instanceof Http2DataFrame d) {
                bytes += d.content().readableBytes();
                end = d.isEndStream();
            }
            ReferenceCountUtil.release(msg);
            if (end) {
                completed.incrementAndGet();
                ByteBuf body =
                        Unpooled.copiedBuffer(head.method() + " " + head.path() + " " + bytes, StandardCharsets.UTF_8);
                ctx.write(new DefaultHttp2HeadersFrame(
                        new DefaultHttp2Headers().status("200").set("x-echo", "yes")));
                ctx.writeAndFlush(new DefaultHttp2DataFrame(body, true));
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof Http2ResetFrame) {
                resets.incrementAndGet();
            }
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
