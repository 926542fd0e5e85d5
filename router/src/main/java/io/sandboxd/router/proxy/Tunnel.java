package io.sandboxd.router.proxy;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sandboxd.router.metrics.RouterMetrics;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A raw byte relay between client and backend after a successful upgrade (101). It works for any
 * upgraded protocol, not only WebSocket, and carries no request timeout: an upgraded connection
 * lives as long as either side keeps it open. Backpressure: a side is read only while its peer is
 * writable.
 */
final class Tunnel {
    private final Channel client;
    private final Channel backend;
    private final RouterMetrics metrics;
    private final AtomicBoolean closed = new AtomicBoolean();

    Tunnel(Channel client, Channel backend, RouterMetrics metrics) {
        this.client = client;
        this.backend = backend;
        this.metrics = metrics;
        metrics.upgradeOpened();
    }

    Relay clientSide() {
        return new Relay(backend);
    }

    Relay backendSide() {
        return new Relay(client);
    }

    private void closeBoth() {
        if (closed.compareAndSet(false, true)) {
            metrics.upgradeClosed();
            // Flush what is queued for each side before closing it.
            client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            backend.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    final class Relay extends ChannelInboundHandlerAdapter {
        private final Channel peer;

        Relay(Channel peer) {
            this.peer = peer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            peer.write(msg, peer.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            peer.flush();
            if (peer.isWritable()) {
                ctx.read();
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                peer.read();
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            closeBoth();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
