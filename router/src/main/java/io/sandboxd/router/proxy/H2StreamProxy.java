package io.sandboxd.router.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;
import io.sandboxd.router.authz.AccessRequest;
import io.sandboxd.router.authz.AuthzException;
import io.sandboxd.router.resolve.NoSandboxServiceException;
import io.sandboxd.router.resolve.ResolvedTarget;
import io.sandboxd.router.routing.Route;
import io.sandboxd.router.routing.RouteException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client HTTP/2 stream (a gRPC call, say) proxied to one stream on the Pod: route → authorize
 * → resolve → vet → open a stream on this connection's backend connection → relay frames both ways.
 * Both stream channels read only while the other side is writable, so each direction's bytes in the
 * router are bounded by the stream window, and flow control holds end to end. Trailers travel as
 * they came; a reset on either side resets the other (a cancelled call reaches the daemon as
 * RST_STREAM, which kills the process). No router timer runs once the Pod's stream is open: the
 * caller's deadline ({@code grpc-timeout}, forwarded unchanged) and cancellation bound the stream.
 */
final class H2StreamProxy extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(H2StreamProxy.class);

    private final RouterServer core;
    private final H2Backends backends;
    private final ArrayDeque<Http2StreamFrame> pending = new ArrayDeque<>(2);
    private final long startNanos = System.nanoTime();
    private ChannelHandlerContext ctx;
    private Http2Headers request;
    private boolean requestEndsWithHeaders;
    private boolean grpc;
    private Route route;
    private Http2StreamChannel back;
    private boolean requestEnded;
    private boolean responseStarted;
    private boolean responseEnded;
    private boolean answeredLocally;
    private int status;
    private int attempt;

    H2StreamProxy(RouterServer core, H2Backends backends) {
        this.core = core;
        this.backends = backends;
    }

    // ---------------------------------------------------------------- client stream

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2ResetFrame) {
            ReferenceCountUtil.release(msg);
            requestEnded = true;
            closeBack(); // the caller cancelled: the Pod's stream is reset too (RST_STREAM CANCEL)
            return;
        }
        if (!(msg instanceof Http2HeadersFrame) && !(msg instanceof Http2DataFrame)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        Http2StreamFrame f = (Http2StreamFrame) msg;
        boolean end = msg instanceof Http2HeadersFrame h ? h.isEndStream() : ((Http2DataFrame) msg).isEndStream();
        if (request == null && msg instanceof Http2HeadersFrame h) {
            request = h.headers();
            requestEnded = end;
            requestEndsWithHeaders = end;
            onRequestHead();
            return;
        }
        requestEnded |= end;
        if (answeredLocally) {
            ReferenceCountUtil.release(msg);
        } else if (back != null) {
            back.write(copy(f), back.voidPromise());
        } else {
            pending.add(f);
        }
    }

    /**
     * Reads on while the Pod's stream can take more, also after the request ended: a client's
     * RST_STREAM is only delivered (and the stream channel only closes) when this side reads.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (back != null) {
            back.flush();
            if (back.isWritable()) {
                ctx.read();
            }
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && back != null && !responseEnded) {
            back.read();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePending();
        if (!responseEnded) {
            closeBack(); // the client stream or its connection went away first
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("client stream error: {}", cause.toString());
        ctx.close();
    }

    private void onRequestHead() {
        grpc = H2Headers.isGrpc(request);
        if (request.method() == null) {
            answer(400, "Malformed HTTP/2 request: no :method.");
            return;
        }
        String method = request.method().toString();
        if (request.path() == null && !HttpMethod.CONNECT.name().equals(method)) {
            answer(400, "Malformed HTTP/2 request: no :path.");
            return;
        }
        String path = request.path() == null ? "" : request.path().toString();
        Optional<RequestFraming.Refusal> framing = RequestFraming.targetAndMethod(method, path, true);
        if (framing.isPresent()) {
            answer(framing.get().status(), framing.get().detail());
            return;
        }
        HttpHeaders view = H2Headers.routingView(request);
        if (!core.parser.isRouted(path, view) && answeredProbe(path)) {
            return;
        }
        try {
            route = core.parser.parse(path, view);
        } catch (RouteException e) {
            answer(e.status(), e.detail());
            return;
        }
        CompletableFuture<Void> az;
        long authzStart = System.nanoTime();
        try {
            az = core.authorizer.authorize(
                    view.get(HttpHeaderNames.AUTHORIZATION),
                    new AccessRequest(route.namespace(), route.sandboxId(), route.podIp() != null));
        } catch (RuntimeException t) {
            az = CompletableFuture.failedFuture(t);
        }
        boolean immediate = az.isDone();
        onLoop(az, (v, t) -> {
            core.metrics.authzDecision(immediate, authzStart);
            afterAuthz(t);
        });
    }

    private boolean answeredProbe(String path) {
        String p = path.indexOf('?') < 0 ? path : path.substring(0, path.indexOf('?'));
        if ("/healthz".equals(p)) {
            answerJson(200, JsonResponses.status("ok"));
            return true;
        }
        if ("/readyz".equals(p)) {
            boolean ready = core.ready.getAsBoolean();
            answerJson(ready ? 200 : 503, JsonResponses.status(ready ? "ready" : "not ready"));
            return true;
        }
        return false;
    }

    private void afterAuthz(Throwable t) {
        if (!ctx.channel().isActive()) {
            return;
        }
        Throwable cause = unwrap(t);
        if (cause instanceof AuthzException ae) {
            core.metrics.authzDenied(ae.status());
            answer(ae.status(), ae.getMessage());
        } else if (cause != null) {
            log.warn(
                    "authorizer ({}) failed: {}",
                    core.authorizer.mode(),
                    cause.getClass().getSimpleName());
            answer(500, "Authorization check failed.");
        } else {
            resolveAndOpen();
        }
    }

    private void resolveAndOpen() {
        CompletableFuture<ResolvedTarget> f;
        try {
            f = core.resolver.resolve(route);
        } catch (RuntimeException t) {
            f = CompletableFuture.failedFuture(t);
        }
        onLoop(f, (target, t) -> {
            if (!ctx.channel().isActive()) {
                return;
            }
            if (t != null) {
                retryOrFail(unwrap(t));
                return;
            }
            InetSocketAddress addr;
            try {
                addr = core.dialPolicy.choose(target, route.namespace(), route.sandboxId());
            } catch (RouteException refused) {
                log.warn(
                        "not dialling {} for sandbox {}/{}: {}",
                        target.addresses(),
                        route.namespace(),
                        route.sandboxId(),
                        refused.detail());
                core.metrics.refusedAddress(target.source());
                answer(refused.status(), refused.detail());
                return;
            }
            core.metrics.resolved(target.source());
            Http2Headers out = H2Headers.forBackend(request, route.forwardUri(), target.hostHeader(), clientIp());
            onLoop(backends.openStream(ctx.channel().eventLoop(), addr, new H2BackendStream(this)), (stream, err) -> {
                if (err != null) {
                    core.metrics.connectFailure();
                    log.debug("opening a stream to {} failed: {}", addr, err.toString());
                    retryOrFail(err);
                } else if (!ctx.channel().isActive()) {
                    stream.close();
                } else {
                    attach(stream, out);
                }
            });
        });
    }

    /**
     * Continues on this stream's event loop: at once when the stage is already complete here (the
     * common case: allow-all or a cached verdict, a Pod IP, an open backend connection), so a call
     * costs no extra task hops; otherwise as a task on the loop.
     */
    private <T> void onLoop(CompletableFuture<T> f, java.util.function.BiConsumer<T, Throwable> next) {
        if (f.isDone() && ctx.executor().inEventLoop()) {
            T value = null;
            Throwable error = null;
            try {
                value = f.join();
            } catch (CompletionException | java.util.concurrent.CancellationException e) {
                error = e;
            }
            next.accept(value, error);
        } else {
            f.whenCompleteAsync(next, ctx.executor());
        }
    }

    private void retryOrFail(Throwable cause) {
        if (attempt < core.config.maxRetries()) {
            attempt++;
            ctx.executor()
                    .schedule(
                            () -> {
                                if (ctx.channel().isActive()) {
                                    resolveAndOpen();
                                }
                            },
                            core.config.retryDelay(attempt).toMillis(),
                            TimeUnit.MILLISECONDS);
            return;
        }
        answer(
                502,
                "Could not connect to the backend sandbox: " + route.sandboxId()
                        + (cause instanceof NoSandboxServiceException ? " (" + cause.getMessage() + ")" : ""));
    }

    private void attach(Http2StreamChannel stream, Http2Headers headers) {
        back = stream;
        back.write(new DefaultHttp2HeadersFrame(headers, requestEndsWithHeaders), back.voidPromise());
        Http2StreamFrame f;
        while ((f = pending.poll()) != null) {
            back.write(copy(f), back.voidPromise());
        }
        back.flush();
        back.read();
        if (back.isWritable()) {
            ctx.read();
        }
    }

    // ---------------------------------------------------------------- Pod stream

    void onBackendFrame(Object msg) {
        if (msg instanceof Http2ResetFrame r) {
            // The Pod reset its stream: so does the router towards the caller, with the same code.
            if (!responseEnded) {
                responseEnded = true;
                ctx.writeAndFlush(new DefaultHttp2ResetFrame(r.errorCode()));
            }
            return;
        }
        if (responseEnded || !(msg instanceof Http2HeadersFrame || msg instanceof Http2DataFrame)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        boolean end;
        if (msg instanceof Http2HeadersFrame h) {
            end = h.isEndStream();
            if (!responseStarted) {
                CharSequence s = h.headers().status();
                boolean informational = s != null && s.length() == 3 && s.charAt(0) == '1';
                responseStarted = !informational;
                status = s == null ? 502 : parseStatus(s);
            }
            ctx.write(new DefaultHttp2HeadersFrame(h.headers(), end), ctx.voidPromise());
        } else {
            Http2DataFrame d = (Http2DataFrame) msg;
            end = d.isEndStream();
            ctx.write(new DefaultHttp2DataFrame(d.content(), end), ctx.voidPromise());
        }
        if (end) {
            responseEnded = true;
            ctx.flush();
            core.metrics.request(status, startNanos);
        }
    }

    void onBackendReadComplete() {
        ctx.flush();
        if (!responseEnded && ctx.channel().isWritable()) {
            back.read();
        }
    }

    void onBackendWritabilityChanged() {
        if (back.isWritable()) {
            ctx.read();
        }
    }

    void onBackendClosed() {
        if (responseEnded) {
            return;
        }
        if (!responseStarted) {
            answer(502, "The backend sandbox closed the stream: " + route.sandboxId());
        } else {
            responseEnded = true;
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL)); // truncated, never a clean end
        }
    }

    // ---------------------------------------------------------------- local answers

    /** The router's own answer: gRPC status for gRPC callers, else JSON like HTTP/1.1. */
    private void answer(int httpStatus, String detail) {
        if (grpc) {
            finishLocally(
                    httpStatus, new DefaultHttp2HeadersFrame(H2Headers.grpcError(httpStatus, detail), true), null);
        } else {
            answerJson(httpStatus, JsonResponses.detail(detail));
        }
    }

    private void answerJson(int httpStatus, byte[] body) {
        Http2Headers h = new DefaultHttp2Headers()
                .status(Integer.toString(httpStatus))
                .set(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        ByteBuf buf = ctx.alloc().buffer(body.length).writeBytes(body);
        finishLocally(httpStatus, new DefaultHttp2HeadersFrame(h, false), new DefaultHttp2DataFrame(buf, true));
    }

    private void finishLocally(int httpStatus, Http2HeadersFrame head, Http2DataFrame body) {
        if (responseStarted || responseEnded) {
            if (body != null) {
                body.release();
            }
            return;
        }
        answeredLocally = true;
        responseEnded = true;
        status = httpStatus;
        releasePending();
        closeBack();
        core.metrics.request(httpStatus, startNanos);
        Channel ch = ctx.channel();
        ChannelFuture done;
        if (body == null) {
            done = ch.writeAndFlush(head);
        } else {
            ch.write(head, ch.voidPromise());
            done = ch.writeAndFlush(body);
        }
        if (!requestEnded) {
            // The caller may still be sending: reset the rest of its stream once the answer is out.
            done.addListener(ChannelFutureListener.CLOSE);
        }
    }

    // ---------------------------------------------------------------- helpers

    private void closeBack() {
        if (back != null && back.isActive()) {
            back.close(); // an open stream is reset with CANCEL
        }
    }

    private void releasePending() {
        Http2StreamFrame f;
        while ((f = pending.poll()) != null) {
            ReferenceCountUtil.release(f);
        }
    }

    /** A frame for the other stream: frames carry their stream, so the content moves to a new one. */
    private static Http2StreamFrame copy(Http2StreamFrame f) {
        if (f instanceof Http2DataFrame d) {
            return new DefaultHttp2DataFrame(d.content(), d.isEndStream());
        }
        Http2HeadersFrame h = (Http2HeadersFrame) f;
        return new DefaultHttp2HeadersFrame(h.headers(), h.isEndStream());
    }

    private String clientIp() {
        Channel parent = ctx.channel().parent();
        return parent != null && parent.remoteAddress() instanceof InetSocketAddress isa && isa.getAddress() != null
                ? isa.getAddress().getHostAddress()
                : null;
    }

    private static int parseStatus(CharSequence s) {
        try {
            return Integer.parseInt(s.toString());
        } catch (NumberFormatException e) {
            return 502;
        }
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
