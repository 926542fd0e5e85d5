package io.sandboxd.router.proxy;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

/**
 * HTTP/2 on the HTTP/1.1 port: prior knowledge (what gRPC clients send to a plain-text address) is
 * recognised by its preface before the HTTP/1.1 codec sees a byte, and {@code Upgrade: h2c} on a
 * connection's first request switches it after a 101. Both leave the same pipeline: the frame
 * codec, one child channel per stream running {@link H2StreamProxy}, and {@link H2ConnectionGuard}.
 * Neither detector stays on an HTTP/1.1 connection past its first request.
 */
final class H2Pipeline {
    /** Body bytes an h2c upgrade request may carry (it is aggregated to become stream 1). */
    static final int MAX_UPGRADE_BODY = 64 * 1024;

    private static final AsciiString H2C = AsciiString.cached("h2c");

    private H2Pipeline() {}

    /** The first handler of every client connection; it adds the HTTP/1.1 codec after itself. */
    static ChannelHandler detector(RouterServer core, HttpServerCodec http1) {
        HttpServerUpgradeHandler upgrade =
                new HttpServerUpgradeHandler(
                        http1,
                        protocol -> H2C.contentEqualsIgnoreCase(protocol) ? upgradeCodec(core) : null,
                        MAX_UPGRADE_BODY,
                        true) {
                    @Override
                    protected boolean shouldHandleUpgradeRequest(HttpRequest req) {
                        // Only h2c is aggregated and answered here; WebSocket and other upgrades stream to the Pod.
                        String u = req.headers().get(HttpHeaderNames.UPGRADE);
                        if (u == null) {
                            return false;
                        }
                        for (String token : u.split(",")) {
                            if (H2C.contentEqualsIgnoreCase(token.trim())) {
                                return true;
                            }
                        }
                        return false;
                    }

                    @Override
                    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
                        // Netty's own 413 has no body; the router's errors are JSON and name their limit.
                        ReferenceCountUtil.release(oversized);
                        FullHttpResponse r = JsonResponses.error(
                                ctx.alloc(),
                                413,
                                "An h2c upgrade request may carry at most " + MAX_UPGRADE_BODY + " bytes of body.");
                        r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                        ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
                    }
                };
        return new CleartextHttp2ServerUpgradeHandler(http1, upgrade, new Installer(core));
    }

    private static Http2ServerUpgradeCodec upgradeCodec(RouterServer core) {
        H2Backends backends = new H2Backends(core);
        Http2FrameCodec codec = frameCodec();
        return new Http2ServerUpgradeCodec(codec, streams(core, backends), new H2ConnectionGuard(codec, backends));
    }

    private static Http2FrameCodec frameCodec() {
        return Http2FrameCodecBuilder.forServer()
                .initialSettings(H2Settings.server())
                .build();
    }

    private static Http2MultiplexHandler streams(RouterServer core, H2Backends backends) {
        return new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
                ch.config().setAutoRead(false);
                ch.pipeline().addLast("stream", new H2StreamProxy(core, backends));
            }
        });
    }

    /** Installs the HTTP/2 handlers where it stands once the preface was seen, then steps aside. */
    private static final class Installer extends ChannelHandlerAdapter {
        private final RouterServer core;

        Installer(RouterServer core) {
            this.core = core;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            H2Backends backends = new H2Backends(core);
            Http2FrameCodec codec = frameCodec();
            ctx.pipeline()
                    .addAfter(ctx.name(), "h2", codec)
                    .addAfter("h2", "streams", streams(core, backends))
                    .addAfter("streams", "h2-guard", new H2ConnectionGuard(codec, backends));
            ctx.pipeline().remove(this);
        }
    }
}
