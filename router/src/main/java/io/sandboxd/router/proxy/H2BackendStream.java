package io.sandboxd.router.proxy;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** Forwards a Pod stream's events to the client stream that owns it. */
final class H2BackendStream extends ChannelInboundHandlerAdapter {
    private final H2StreamProxy owner;

    H2BackendStream(H2StreamProxy owner) {
        this.owner = owner;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        owner.onBackendFrame(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        owner.onBackendReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        owner.onBackendWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        owner.onBackendClosed();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
