package io.sandboxd.bench.router;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Closed-loop HTTP/1.1 load: {@code concurrency} keep-alive connections, each sending its next
 * request as soon as the previous response is complete. Latency is measured per request from write
 * to full response (HdrHistogram, microsecond resolution).
 */
final class LoadGenerator {
    /** Results of one run. */
    record Result(long requests, long errors, double seconds, Histogram latencyMicros) {
        double rps() {
            return requests / seconds;
        }

        double p50Millis() {
            return latencyMicros.getValueAtPercentile(50) / 1000.0;
        }

        double p99Millis() {
            return latencyMicros.getValueAtPercentile(99) / 1000.0;
        }
    }

    private final EventLoopGroup group;

    LoadGenerator(EventLoopGroup group) {
        this.group = group;
    }

    Result run(
            InetSocketAddress target,
            Map<String, String> headers,
            int bodyBytes,
            int concurrency,
            long warmupMillis,
            long measureMillis)
            throws InterruptedException {
        ByteBuf body = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(new byte[bodyBytes]));
        FullHttpRequest template = new DefaultFullHttpRequest(
                HttpVersion.HTTP_1_1, bodyBytes > 0 ? HttpMethod.POST : HttpMethod.GET, "/bench", body);
        template.headers().set(HttpHeaderNames.HOST, target.getHostString() + ":" + target.getPort());
        template.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bodyBytes);
        headers.forEach(template.headers()::set);

        Recorder recorder = new Recorder(3_600_000_000L, 3);
        LongAdder done = new LongAdder();
        LongAdder errors = new LongAdder();
        State state = new State();
        List<Channel> channels = new ArrayList<>();
        Bootstrap b = new Bootstrap()
                .group(group)
                .channel(Transport.clientChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline()
                                .addLast(new HttpClientCodec())
                                .addLast(new HttpObjectAggregator(1 << 20))
                                .addLast(new Conn(template, recorder, done, errors, state));
                    }
                });
        for (int i = 0; i < concurrency; i++) {
            channels.add(b.connect(target).sync().channel());
        }
        for (Channel ch : channels) {
            ch.pipeline().get(Conn.class).fire(ch);
        }
        Thread.sleep(warmupMillis);
        recorder.reset();
        long before = done.sum();
        long errBefore = errors.sum();
        long t0 = System.nanoTime();
        state.measuring = true;
        Thread.sleep(measureMillis);
        long after = done.sum();
        long t1 = System.nanoTime();
        Histogram h = recorder.getIntervalHistogram();
        state.running = false;
        for (Channel ch : channels) {
            ch.close().await(5, TimeUnit.SECONDS);
        }
        return new Result(after - before, errors.sum() - errBefore, (t1 - t0) / 1e9, h);
    }

    private static final class State {
        volatile boolean running = true;
        volatile boolean measuring;
    }

    private static final class Conn extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final FullHttpRequest template;
        private final Recorder recorder;
        private final LongAdder done;
        private final LongAdder errors;
        private final State state;
        private long sentAt;

        Conn(FullHttpRequest template, Recorder recorder, LongAdder done, LongAdder errors, State state) {
            this.template = template;
            this.recorder = recorder;
            this.done = done;
            this.errors = errors;
            this.state = state;
        }

        void fire(Channel ch) {
            ch.eventLoop().execute(() -> send(ch));
        }

        private void send(Channel ch) {
            if (!state.running || !ch.isActive()) {
                return;
            }
            sentAt = System.nanoTime();
            ch.writeAndFlush(template.retainedDuplicate());
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse r) {
            long micros = (System.nanoTime() - sentAt) / 1000;
            if (r.status().code() == 200) {
                recorder.recordValue(Math.max(1, micros));
                done.increment();
            } else {
                errors.increment();
            }
            send(ctx.channel());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.increment();
            ctx.close();
        }
    }
}
