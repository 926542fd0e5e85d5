package io.sandboxd.router.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.ReferenceCountUtil;
import io.sandboxd.router.proxy.Transport;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/2 cleartext client with prior knowledge that sends exactly the header fields it is given
 * (no validation, so malformed requests reach the router as written) and records what comes back
 * on the stream: headers, body, trailers, or a reset.
 */
public final class H2RawClient implements AutoCloseable {
    private final EventLoopGroup group = Transport.group(1, "h2-raw-client");
    private final Channel connection;

    /** What came back on one stream. */
    public record Answer(List<Http2Headers> headers, byte[] body, Long resetCode, boolean connectionClosed) {
        public String status() {
            return headers.isEmpty() ? null : String.valueOf(headers.get(0).status());
        }

        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** A field of the last header block (the trailers, or the only block). */
        public String last(String name) {
            if (headers.isEmpty()) {
                return null;
            }
            CharSequence v = headers.get(headers.size() - 1).get(name);
            return v == null ? null : v.toString();
        }
    }

    public H2RawClient(int port) throws InterruptedException {
        connection = new Bootstrap()
                .group(group)
                .channel(Transport.clientChannel())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline()
                                .addLast(
                                        Http2FrameCodecBuilder.forClient()
                                                .validateHeaders(false)
                                                .build(),
                                        new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
                    }
                })
                .connect("127.0.0.1", port)
                .sync()
                .channel();
    }

    /** Request pseudo-header fields and fields, unvalidated: {@code request("GET", "/x")}. */
    public static Http2Headers request(String method, String path) {
        Http2Headers h = new DefaultHttp2Headers(false);
        if (method != null) {
            h.method(method);
        }
        h.scheme("http").authority("router");
        if (path != null) {
            h.path(path);
        }
        return h;
    }

    /** Sends {@code headers} (ending the stream when {@code body} is null) and waits for the stream's end. */
    public Answer exchange(Http2Headers headers, byte[] body) throws Exception {
        return exchange(headers, body, () -> {});
    }

    /** As {@link #exchange(Http2Headers, byte[])}, running {@code beforeBody} once the headers are out. */
    public Answer exchange(Http2Headers headers, byte[] body, ThrowingRunnable beforeBody) throws Exception {
        Recorder rec = new Recorder();
        Http2StreamChannel stream = new Http2StreamChannelBootstrap(connection)
                .handler(rec)
                .open()
                .sync()
                .getNow();
        stream.writeAndFlush(new DefaultHttp2HeadersFrame(headers, body == null))
                .sync();
        beforeBody.run();
        if (body != null) {
            ByteBuf b = Unpooled.wrappedBuffer(body);
            stream.write(new DefaultHttp2DataFrame(b, true));
        }
        stream.flush();
        return rec.done.get(30, TimeUnit.SECONDS);
    }

    @FunctionalInterface
    public interface ThrowingRunnable {
        void run() throws Exception;
    }

    private final class Recorder extends ChannelInboundHandlerAdapter {
        final List<Http2Headers> headers = new ArrayList<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final CompletableFuture<Answer> done = new CompletableFuture<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof Http2HeadersFrame h) {
                    headers.add(h.headers());
                    if (h.isEndStream()) {
                        finish(null);
                    }
                } else if (msg instanceof Http2DataFrame d) {
                    byte[] b = new byte[d.content().readableBytes()];
                    d.content().getBytes(d.content().readerIndex(), b);
                    body.writeBytes(b);
                    if (d.isEndStream()) {
                        finish(null);
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        /** The multiplexer hands a stream's RST_STREAM (and the connection's GOAWAY) over as events. */
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof Http2ResetFrame r) {
                finish(r.errorCode());
            } else if (evt instanceof Http2GoAwayFrame g) {
                g.release();
                finish(null);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            finish(null);
        }

        private void finish(Long reset) {
            done.complete(new Answer(List.copyOf(headers), body.toByteArray(), reset, !connection.isActive()));
        }
    }

    @Override
    public void close() {
        connection.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
