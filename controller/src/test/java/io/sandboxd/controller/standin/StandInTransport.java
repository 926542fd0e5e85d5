package io.sandboxd.controller.standin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;

/**
 * The stand-in's HTTP/1.1 and WebSocket server (Netty; a transitive dependency of fabric8's vert.x
 * client). Watches are served the two ways fabric8 asks for them: over a WebSocket, one event per
 * text message, as fabric8 watches a real API server; and as a streamed HTTP response, one event
 * per line, for clients that do not upgrade. The JDK's HTTP server, used before, cannot switch a
 * connection to WebSocket, so every watch fell back to HTTP, whose client side in fabric8 copies
 * each event into a StringBuffer one char at a time: 14% of the controller's CPU samples in a warm
 * burst, a cost it does not pay against a real API server.
 *
 * <p>Requests are handed to {@code executor} whole (one thread per request, as before), and every
 * write waits until Netty has handed the bytes to the socket, so a slow reader holds up its own
 * watch thread and nothing piles up in memory.
 */
final class StandInTransport implements AutoCloseable {
    /** What {@link ApiStandIn} needs of one request. */
    interface Exchange {
        String method();

        String rawPath();

        String rawQuery();

        String header(String name);

        byte[] body();

        /** Sends a whole JSON response; returns when it is on its way. */
        void respond(int code, byte[] json) throws IOException;

        /** Answers a watch: a WebSocket when the client asked to upgrade, else a streamed 200. */
        WatchStream openWatch() throws IOException;
    }

    /** One open watch response on its connection. */
    abstract static class WatchStream implements AutoCloseable {
        final Channel ch;
        private final boolean webSocket;

        private WatchStream(Channel ch, boolean webSocket) {
            this.ch = ch;
            this.webSocket = webSocket;
        }

        /** Writes events (each a JSON line ending in '\n'); returns once they are on their way. */
        abstract void write(List<byte[]> lines) throws IOException;

        final boolean webSocket() {
            return webSocket;
        }

        /** False once the client closed the connection. */
        final boolean open() {
            return ch.isActive();
        }

        @Override
        public abstract void close();
    }

    interface Handler {
        void handle(Exchange ex);
    }

    static final int MAX_BODY = 64 << 20;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final Channel server;

    StandInTransport(ExecutorService executor, Handler handler) throws IOException {
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                // Nagle would add up to 40 ms to small responses on loopback.
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(new HttpServerCodec())
                                .addLast(new HttpObjectAggregator(MAX_BODY))
                                .addLast(new Requests(executor, handler));
                    }
                });
        try {
            server = b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .sync()
                    .channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
            throw new IOException("interrupted while binding", e);
        }
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).awaitUninterruptibly();
    }

    private static final class Requests extends SimpleChannelInboundHandler<Object> {
        private final ExecutorService executor;
        private final Handler handler;

        Requests(ExecutorService executor, Handler handler) {
            super(false);
            this.executor = executor;
            this.handler = handler;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof FullHttpRequest req) {
                executor.execute(() -> {
                    try {
                        handler.handle(new NettyExchange(ctx, req));
                    } finally {
                        req.release();
                    }
                });
            } else if (msg instanceof WebSocketFrame frame) {
                // Only control frames arrive on a watch: answer pings, close on a close.
                try {
                    if (frame instanceof PingWebSocketFrame)
                        ctx.writeAndFlush(new PongWebSocketFrame(frame.content().retain()));
                    else if (frame instanceof CloseWebSocketFrame)
                        ctx.writeAndFlush(new CloseWebSocketFrame()).addListener(ChannelFutureListener.CLOSE);
                } finally {
                    frame.release();
                }
            } else {
                io.netty.util.ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a client that went away mid-request
        }
    }

    private static final class NettyExchange implements Exchange {
        private final ChannelHandlerContext ctx;
        private final FullHttpRequest req;
        private final QueryStringDecoder uri;

        NettyExchange(ChannelHandlerContext ctx, FullHttpRequest req) {
            this.ctx = ctx;
            this.req = req;
            this.uri = new QueryStringDecoder(req.uri());
        }

        @Override
        public String method() {
            return req.method().name();
        }

        @Override
        public String rawPath() {
            return uri.rawPath();
        }

        @Override
        public String rawQuery() {
            String q = uri.rawQuery();
            return q == null || q.isEmpty() ? null : q;
        }

        @Override
        public String header(String name) {
            return req.headers().get(name);
        }

        @Override
        public byte[] body() {
            return ByteBufUtil.getBytes(req.content());
        }

        @Override
        public void respond(int code, byte[] json) throws IOException {
            FullHttpResponse r = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(code), Unpooled.wrappedBuffer(json));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, json.length);
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            if (!keepAlive) r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ChannelFuture f = ctx.writeAndFlush(r);
            if (!keepAlive) f.addListener(ChannelFutureListener.CLOSE);
            await(f);
        }

        @Override
        public WatchStream openWatch() throws IOException {
            String upgrade = req.headers().get(HttpHeaderNames.UPGRADE);
            if (upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket")) {
                WebSocketServerHandshaker hs = new WebSocketServerHandshakerFactory(
                                "ws://" + req.headers().get(HttpHeaderNames.HOST) + req.uri(), null, true)
                        .newHandshaker(req);
                if (hs == null) {
                    await(WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel()));
                    throw new IOException("unsupported WebSocket version");
                }
                await(hs.handshake(ctx.channel(), req));
                return new WebSocketWatch(ctx.channel());
            }
            HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            HttpUtil.setTransferEncodingChunked(r, true);
            await(ctx.writeAndFlush(r));
            return new ChunkedWatch(ctx.channel());
        }
    }

    private static final class WebSocketWatch extends WatchStream {
        WebSocketWatch(Channel ch) {
            super(ch, true);
        }

        @Override
        void write(List<byte[]> lines) throws IOException {
            ChannelFuture last = null;
            for (byte[] line : lines) {
                // One event per message, as the API server sends them: without the line's '\n'.
                int n = line.length > 0 && line[line.length - 1] == '\n' ? line.length - 1 : line.length;
                last = ch.write(new TextWebSocketFrame(Unpooled.wrappedBuffer(line, 0, n)));
            }
            ch.flush();
            if (last != null) await(last);
        }

        @Override
        public void close() {
            if (ch.isActive()) ch.writeAndFlush(new CloseWebSocketFrame()).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static final class ChunkedWatch extends WatchStream {
        ChunkedWatch(Channel ch) {
            super(ch, false);
        }

        @Override
        void write(List<byte[]> lines) throws IOException {
            int size = 0;
            for (byte[] l : lines) size += l.length;
            ByteBuf buf = Unpooled.buffer(size);
            for (byte[] l : lines) buf.writeBytes(l);
            await(ch.writeAndFlush(new DefaultHttpContent(buf)));
        }

        @Override
        public void close() {
            if (ch.isActive()) ch.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        }
    }

    /** Waits until a write left (or failed: the client went away). */
    private static void await(ChannelFuture f) throws IOException {
        f.awaitUninterruptibly();
        if (!f.isSuccess()) throw new IOException("write failed: " + f.cause(), f.cause());
    }
}
