package io.sandboxd.router.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
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
import io.sandboxd.router.proxy.Transport;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/** Probes and metrics on their own port: {@code /healthz}, {@code /readyz} (informer synced), {@code /metrics}. */
public final class AdminServer implements AutoCloseable {
    private final PrometheusMeterRegistry registry;
    private final BooleanSupplier ready;
    private final EventLoopGroup group;
    private Channel channel;

    public AdminServer(PrometheusMeterRegistry registry, BooleanSupplier ready, EventLoopGroup group) {
        this.registry = registry;
        this.ready = ready;
        this.group = group;
    }

    public AdminServer start(String host, int port) throws InterruptedException {
        channel = new ServerBootstrap()
                .group(group)
                .channel(Transport.serverChannel())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(new HttpServerCodec())
                                .addLast(new HttpObjectAggregator(64 * 1024))
                                .addLast(new Handler());
                    }
                })
                .bind(host, port)
                .sync()
                .channel();
        return this;
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            String path = req.uri();
            int q = path.indexOf('?');
            if (q >= 0) {
                path = path.substring(0, q);
            }
            FullHttpResponse resp;
            switch (path) {
                case "/healthz" -> resp = text(200, "application/json", "{\"status\":\"ok\"}");
                case "/readyz" -> {
                    boolean ok = ready.getAsBoolean();
                    resp = text(
                            ok ? 200 : 503,
                            "application/json",
                            ok ? "{\"status\":\"ready\"}" : "{\"status\":\"not ready\"}");
                }
                case "/metrics" -> resp = text(200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
                default -> resp = text(404, "application/json", "{\"detail\":\"Not found.\"}");
            }
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            HttpUtil.setKeepAlive(resp, keepAlive);
            var f = ctx.writeAndFlush(resp);
            if (!keepAlive) {
                f.addListener(ChannelFutureListener.CLOSE);
            }
        }

        private FullHttpResponse text(int status, String type, String body) {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            FullHttpResponse r = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(b));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, b.length);
            return r;
        }
    }
}
