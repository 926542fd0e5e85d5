package io.sandboxd.router.proxy;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * Connection-level duties of a client HTTP/2 connection: it is read continuously (streams apply
 * backpressure one by one through flow control), closed when idle with no stream open, and its
 * backend connections close with it.
 */
final class H2ConnectionGuard extends ChannelInboundHandlerAdapter {
    private final Http2FrameCodec codec;
    private final H2Backends backends;

    H2ConnectionGuard(Http2FrameCodec codec, H2Backends backends) {
        this.codec = codec;
        this.backends = backends;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ProxyConnection http1 = ctx.pipeline().get(ProxyConnection.class);
        if (http1 != null) {
            ctx.pipeline().remove(http1); // it never saw a request of this connection
        }
        ctx.channel().config().setAutoRead(true);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (codec.connection().numActiveStreams() == 0) {
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        backends.closeAll();
        ctx.fireChannelInactive();
    }
}
