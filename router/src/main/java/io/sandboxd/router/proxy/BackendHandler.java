package io.sandboxd.router.proxy;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** Forwards a backend connection's events to the client connection that owns it. */
final class BackendHandler extends ChannelInboundHandlerAdapter {
    private final ProxyConnection owner;

    BackendHandler(ProxyConnection owner) {
        this.owner = owner;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        owner.onBackendRead(ctx.channel(), msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        owner.onBackendReadComplete(ctx.channel());
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        owner.onBackendWritabilityChanged(ctx.channel());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        owner.onBackendClosed(ctx.channel());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
