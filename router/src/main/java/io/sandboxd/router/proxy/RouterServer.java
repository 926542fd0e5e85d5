package io.sandboxd.router.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.sandboxd.router.authz.Authorizer;
import io.sandboxd.router.metrics.RouterMetrics;
import io.sandboxd.router.resolve.TargetResolver;
import io.sandboxd.router.routing.RouteParser;
import io.sandboxd.router.vetting.DialPolicy;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data-plane listener: HTTP/1.1 ({@link ProxyConnection} per client connection) and, on the same
 * port, HTTP/2 cleartext by prior knowledge or h2c upgrade ({@link H2StreamProxy} per stream).
 */
public final class RouterServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RouterServer.class);
    private static final int MAX_CHUNK = 64 * 1024;
    /** Keep-alive client connections with no exchange in progress are closed after this long. */
    static final int IDLE_SECONDS = 120;

    final RouterConfig config;
    final RouteParser parser;
    final DialPolicy dialPolicy;
    final TargetResolver resolver;
    final Authorizer authorizer;
    final RouterMetrics metrics;
    final BooleanSupplier ready;
    final Bootstrap backendBootstrap;
    private final EventLoopGroup group;
    private final boolean ownGroup;
    private Channel serverChannel;

    public RouterServer(
            RouterConfig config,
            TargetResolver resolver,
            Authorizer authorizer,
            RouterMetrics metrics,
            BooleanSupplier ready,
            EventLoopGroup group) {
        this.config = config;
        this.parser = new RouteParser(config.pathRoutingPrefix());
        this.dialPolicy = new DialPolicy(config.addressPolicy(), config.allowLoopbackPodIp());
        this.resolver = resolver;
        this.authorizer = authorizer;
        this.metrics = metrics;
        this.ready = ready;
        this.ownGroup = group == null;
        this.group = group != null ? group : Transport.group(config.ioThreads(), "router-io");
        this.backendBootstrap = new Bootstrap()
                .channel(Transport.clientChannel())
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 * 1024, 256 * 1024))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)
                        Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()));
    }

    HttpClientCodec newClientCodec() {
        HttpDecoderConfig dc = new HttpDecoderConfig()
                .setMaxInitialLineLength(8192)
                .setMaxHeaderSize(64 * 1024)
                .setMaxChunkSize(MAX_CHUNK);
        // failOnMissingResponse=false: a backend that closes early is reported by ProxyConnection.
        return new HttpClientCodec(dc, false, false);
    }

    public RouterServer start() throws InterruptedException {
        ServerBootstrap sb = new ServerBootstrap()
                .group(group)
                .channel(Transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 4096)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 * 1024, 256 * 1024))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        HttpDecoderConfig dc = new HttpDecoderConfig()
                                .setMaxInitialLineLength(RequestFraming.MAX_REQUEST_LINE)
                                .setMaxHeaderSize(RequestFraming.MAX_HEADER_BYTES)
                                .setMaxChunkSize(MAX_CHUNK);
                        HttpServerCodec http1 = new HttpServerCodec(dc);
                        ch.pipeline()
                                .addLast("idle", new IdleStateHandler(0, 0, IDLE_SECONDS))
                                // Adds the HTTP/1.1 codec after itself and steps aside at the first
                                // byte that is not the HTTP/2 preface.
                                .addLast("h2-detect", H2Pipeline.detector(RouterServer.this, http1))
                                .addLast("proxy", new ProxyConnection(RouterServer.this));
                    }
                });
        serverChannel = sb.bind(config.bindHost(), config.port()).sync().channel();
        log.atInfo()
                .addKeyValue("port", port())
                .addKeyValue("proxy_timeout_s", config.proxyTimeout().toSeconds())
                .log(
                        "router listening on {} (transport {}, path routing {}, proxy timeout {}s)",
                        serverChannel.localAddress(),
                        Transport.epoll() ? "epoll" : "nio",
                        config.pathRoutingPrefix().isEmpty() ? "off" : config.pathRoutingPrefix(),
                        config.proxyTimeout().toSeconds());
        return this;
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    @Override
    public void close() {
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        if (ownGroup) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
