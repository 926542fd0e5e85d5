package io.sandboxd.router.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.sandboxd.router.authz.AccessRequest;
import io.sandboxd.router.authz.AuthzException;
import io.sandboxd.router.resolve.NoSandboxServiceException;
import io.sandboxd.router.resolve.ResolvedTarget;
import io.sandboxd.router.routing.Route;
import io.sandboxd.router.routing.RouteException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection. Requests are handled one at a time (pipelined ones queue); each exchange
 * goes route → authorize → resolve → connect (or reuse this connection's keep-alive backend) →
 * stream both ways. Both channels run with auto-read off on the same event loop, so a side is read
 * only when the other can take the bytes: memory per connection stays bounded whatever the body
 * size, and nothing is ever buffered whole.
 */
final class ProxyConnection extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ProxyConnection.class);

    private final RouterServer core;
    private ChannelHandlerContext ctx;
    private String clientIp;
    private Channel backend;
    private SocketAddress backendAddr;
    private Exchange ex;
    private final ArrayDeque<Object> pipelined = new ArrayDeque<>(0);
    private boolean draining;
    private boolean closed;

    /** State of one request/response exchange. */
    private static final class Exchange {
        final HttpRequest request;
        final long startNanos = System.nanoTime();
        final boolean clientKeepAlive;
        final boolean head;
        final boolean bodyless;
        final ArrayDeque<HttpContent> pending = new ArrayDeque<>(2);
        Route route;
        ResolvedTarget target;
        InetSocketAddress address; // the vetted address dialled, the only one ever used
        boolean upgrade;
        boolean requestComplete;
        boolean attached;
        boolean reusedBackend;
        boolean retriedStale;
        boolean rejected;
        boolean responseStarted;
        boolean responseComplete;
        boolean informational;
        boolean switching;
        boolean frontKeepAlive;
        boolean backendKeepAlive;
        int status;
        int attempt;
        ScheduledFuture<?> deadline;
        ScheduledFuture<?> headerDeadline;

        Exchange(HttpRequest request) {
            this.request = request;
            this.clientKeepAlive = HttpUtil.isKeepAlive(request);
            this.head = HttpMethod.HEAD.equals(request.method());
            // Judged before RequestFraming has run: a malformed Content-Length counts as a body.
            String length = request.headers().get(HttpHeaderNames.CONTENT_LENGTH);
            this.bodyless = !request.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)
                    && (length == null || RequestFraming.contentLength(length) == 0L);
        }

        String id() {
            return route == null ? "" : route.sandboxId();
        }
    }

    ProxyConnection(RouterServer core) {
        this.core = core;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        SocketAddress remote = ctx.channel().remoteAddress();
        clientIp = remote instanceof InetSocketAddress isa && isa.getAddress() != null
                ? isa.getAddress().getHostAddress()
                : null;
        ctx.read();
    }

    // ---------------------------------------------------------------- client side

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!pipelined.isEmpty() || (ex != null && ex.requestComplete && msg instanceof HttpRequest)) {
            pipelined.add(msg);
            return;
        }
        dispatch(msg);
    }

    private void dispatch(Object msg) {
        if (msg instanceof FullHttpRequest full) {
            // An h2c upgrade request that could not be upgraded (e.g. no HTTP2-Settings) arrives
            // aggregated from the upgrade handler: it continues as an ordinary head and its body.
            HttpRequest head =
                    new DefaultHttpRequest(full.protocolVersion(), full.method(), full.uri(), full.headers());
            head.setDecoderResult(full.decoderResult());
            dispatch(head);
            dispatch(new DefaultLastHttpContent(full.content(), full.trailingHeaders()));
            return;
        }
        if (msg instanceof HttpRequest req) {
            startExchange(req);
            return;
        }
        if (msg instanceof HttpContent c) {
            if (ex == null || ex.requestComplete) {
                c.release();
            } else {
                onRequestContent(ex, c);
            }
            return;
        }
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Exchange e = ex;
        if (e == null) {
            if (pipelined.isEmpty()) {
                ctx.read();
            }
            return;
        }
        if (e.attached && backend != null) {
            backend.flush();
        }
        if (!e.requestComplete && (e.rejected || (e.attached && backend != null && backend.isWritable()))) {
            ctx.read();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Exchange e = ex;
        if (ctx.channel().isWritable() && backend != null && e != null && e.attached && !e.responseComplete) {
            backend.read();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        Exchange e = ex;
        ex = null;
        if (e != null) {
            cancelTimers(e);
            releasePending(e);
        }
        closeBackend();
        Object m;
        while ((m = pipelined.poll()) != null) {
            ReferenceCountUtil.release(m);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (ex == null && pipelined.isEmpty()) {
                ctx.close(); // idle keep-alive connection; requests in flight have their own timers
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("client connection error: {}", cause.toString());
        ctx.close();
    }

    private void startExchange(HttpRequest req) {
        Exchange e = new Exchange(req);
        ex = e;
        if (req.decoderResult().isFailure()) {
            e.requestComplete = true; // the decoder discards the rest of a malformed stream
            RequestFraming.Refusal r = RequestFraming.decoderFailure(req.decoderResult());
            respondLocally(e, JsonResponses.error(ctx.alloc(), r.status(), r.detail()), true);
            return;
        }
        Optional<RequestFraming.Refusal> framing = RequestFraming.check(req);
        if (framing.isPresent()) {
            // The body of a request whose framing is in doubt cannot be skipped reliably: close after.
            e.requestComplete = true;
            respondLocally(
                    e,
                    JsonResponses.error(
                            ctx.alloc(), framing.get().status(), framing.get().detail()),
                    true);
            return;
        }
        String uri = req.uri();
        if (!core.parser.isRouted(uri, req.headers())) {
            String path = pathOf(uri);
            if ("/healthz".equals(path)) {
                respondLocally(e, JsonResponses.status(ctx.alloc(), 200, "ok"), false);
                return;
            }
            if ("/readyz".equals(path)) {
                boolean ready = core.ready.getAsBoolean();
                respondLocally(
                        e, JsonResponses.status(ctx.alloc(), ready ? 200 : 503, ready ? "ready" : "not ready"), false);
                return;
            }
        }
        Route route;
        try {
            route = core.parser.parse(uri, req.headers());
        } catch (RouteException re) {
            respondError(e, re.status(), re.detail());
            return;
        }
        e.route = route;
        e.upgrade = ForwardHeaders.isUpgrade(req.headers());
        // The proxy timeout bounds every request until its response ends. An upgrade attempt is an
        // ordinary request until the 101 arrives; switchProtocols() cancels the timer, so an upgraded
        // connection (a code-server WebSocket, say) is never cut by it.
        e.deadline = ctx.executor()
                .schedule(() -> onDeadline(e), core.config.proxyTimeout().toMillis(), TimeUnit.MILLISECONDS);
        CompletableFuture<Void> az;
        long authzStart = System.nanoTime();
        try {
            az = core.authorizer.authorize(
                    req.headers().get(HttpHeaderNames.AUTHORIZATION),
                    new AccessRequest(route.namespace(), route.sandboxId(), route.podIp() != null));
        } catch (RuntimeException t) {
            az = CompletableFuture.failedFuture(t);
        }
        if (az.isDone()) {
            core.metrics.authzDecision(true, authzStart);
            afterAuthz(e, az);
        } else {
            CompletableFuture<Void> f = az;
            az.whenCompleteAsync(
                    (v, t) -> {
                        core.metrics.authzDecision(false, authzStart);
                        afterAuthz(e, f);
                    },
                    ctx.executor());
        }
    }

    private void onRequestContent(Exchange e, HttpContent c) {
        if (c.decoderResult().isFailure()) {
            // A malformed chunk mid-body: Netty hands it over as a last content. Forwarding it would
            // give the backend a cleanly ended, truncated request, so the backend connection is cut
            // first and the rest of the stream (which the decoder discards) ends this connection.
            c.release();
            e.requestComplete = true;
            closeBackend();
            if (e.responseStarted) {
                ctx.close();
            } else {
                respondLocally(e, JsonResponses.error(ctx.alloc(), 400, "Malformed chunked request body."), true);
            }
            return;
        }
        boolean last = c instanceof LastHttpContent;
        if (last) {
            e.requestComplete = true;
        }
        if (e.rejected) {
            c.release();
            if (last) {
                finishExchange(e);
            }
            return;
        }
        if (e.attached && backend != null) {
            backend.write(c, backend.voidPromise());
            if (last) {
                backend.flush();
                scheduleHeaderTimeout(e);
            }
        } else {
            e.pending.add(c);
        }
    }

    private void afterAuthz(Exchange e, CompletableFuture<Void> az) {
        if (ex != e || closed) {
            return;
        }
        Throwable t = failure(az);
        if (t != null) {
            if (t instanceof AuthzException ae) {
                core.metrics.authzDenied(ae.status());
                respondError(e, ae.status(), ae.getMessage());
            } else {
                log.warn(
                        "authorizer ({}) failed: {}",
                        core.authorizer.mode(),
                        t.getClass().getSimpleName());
                respondError(e, 500, "Authorization check failed.");
            }
            return;
        }
        resolveAndConnect(e);
    }

    private void resolveAndConnect(Exchange e) {
        CompletableFuture<ResolvedTarget> f;
        try {
            f = core.resolver.resolve(e.route);
        } catch (RuntimeException t) { // e.g. the lookup pool is saturated
            f = CompletableFuture.failedFuture(t);
        }
        if (f.isDone()) {
            onResolved(e, f);
        } else {
            CompletableFuture<ResolvedTarget> ff = f;
            f.whenCompleteAsync((v, t) -> onResolved(e, ff), ctx.executor());
        }
    }

    private void onResolved(Exchange e, CompletableFuture<ResolvedTarget> f) {
        if (ex != e || closed) {
            return;
        }
        Throwable t = failure(f);
        if (t != null) {
            log.debug("resolving {}/{} failed: {}", e.route.namespace(), e.id(), t.toString());
            retryOrFail(e, t);
            return;
        }
        e.target = f.join();
        try {
            e.address = core.dialPolicy.choose(e.target, e.route.namespace(), e.id());
        } catch (RouteException refused) {
            log.warn(
                    "not dialling {} for sandbox {}/{}: {}",
                    e.target.addresses(),
                    e.route.namespace(),
                    e.id(),
                    refused.detail());
            core.metrics.refusedAddress(e.target.source());
            respondError(e, refused.status(), refused.detail());
            return;
        }
        core.metrics.resolved(e.target.source());
        connect(e);
    }

    private void connect(Exchange e) {
        InetSocketAddress addr = e.address;
        if (backend != null && backend.isActive() && addr.equals(backendAddr)) {
            attach(e, true);
            return;
        }
        closeBackend();
        Bootstrap b = core.backendBootstrap.clone(ctx.channel().eventLoop()).handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline()
                        .addLast("http", core.newClientCodec())
                        .addLast("backend", new BackendHandler(ProxyConnection.this));
            }
        });
        ChannelFuture cf = b.connect(addr);
        cf.addListener((ChannelFutureListener) f -> {
            if (ex != e || closed) {
                f.channel().close();
                return;
            }
            if (f.isSuccess()) {
                backend = f.channel();
                backendAddr = addr;
                attach(e, false);
            } else {
                core.metrics.connectFailure();
                Throwable cause = f.cause();
                if (e.target.source() == ResolvedTarget.Source.CACHE && isUnreachable(cause)) {
                    // A dead host (timeout / no route) is evicted; "connection refused" means the
                    // pod is there but its server is not up yet, so the entry stays.
                    core.resolver.evict(e.route);
                    core.metrics.cacheEviction();
                }
                log.debug("connect to {} failed: {}", addr, cause.toString());
                retryOrFail(e, cause);
            }
        });
    }

    private void retryOrFail(Exchange e, Throwable cause) {
        if (e.attempt < core.config.maxRetries()) {
            e.attempt++;
            long delay = core.config.retryDelay(e.attempt).toMillis();
            ctx.executor()
                    .schedule(
                            () -> {
                                if (ex == e && !closed) {
                                    resolveAndConnect(e);
                                }
                            },
                            delay,
                            TimeUnit.MILLISECONDS);
            return;
        }
        respondError(
                e,
                502,
                "Could not connect to the backend sandbox: " + e.id()
                        + (cause instanceof NoSandboxServiceException ? " (" + cause.getMessage() + ")" : ""));
    }

    private void attach(Exchange e, boolean reused) {
        e.attached = true;
        e.reusedBackend = reused;
        HttpRequest out =
                ForwardHeaders.forBackend(e.request, e.route.forwardUri(), e.target.hostHeader(), clientIp, e.upgrade);
        Channel b = backend;
        b.write(out, b.voidPromise());
        HttpContent c;
        while ((c = e.pending.poll()) != null) {
            b.write(c, b.voidPromise());
        }
        b.flush();
        if (e.requestComplete) {
            scheduleHeaderTimeout(e);
        }
        b.read();
        if (!e.requestComplete && b.isWritable()) {
            ctx.read();
        }
    }

    // ---------------------------------------------------------------- backend side

    void onBackendRead(Channel ch, Object msg) {
        Exchange e = ex;
        if (ch != backend || e == null || !e.attached || e.responseComplete) {
            ReferenceCountUtil.release(msg); // nothing asked for it (idle keep-alive connection)
            return;
        }
        if (msg instanceof HttpResponse r) {
            if (r.decoderResult().isFailure()) {
                ReferenceCountUtil.release(msg);
                closeBackend();
                if (!e.responseStarted) {
                    respondError(e, 502, "Invalid response from the backend sandbox: " + e.id());
                } else {
                    ctx.close();
                }
                return;
            }
            onResponseHead(e, r);
        }
        if (msg instanceof HttpContent c) {
            onResponseContent(e, c);
        }
    }

    private void onResponseHead(Exchange e, HttpResponse r) {
        int code = r.status().code();
        if (e.upgrade && code == 101) {
            e.switching = true;
            cancel(e.headerDeadline);
            ForwardHeaders.sanitizeResponse(r, true);
            ctx.write(r, ctx.voidPromise());
            return;
        }
        if (code >= 100 && code < 200) { // 100 Continue, 103 Early Hints: not the final response
            e.informational = true;
            ForwardHeaders.sanitizeResponse(r, false);
            ctx.write(r, ctx.voidPromise());
            return;
        }
        cancel(e.headerDeadline);
        e.responseStarted = true;
        e.status = code;
        boolean noBody = e.head || code == 204 || code == 304;
        boolean delimited = noBody || HttpUtil.isContentLengthSet(r) || HttpUtil.isTransferEncodingChunked(r);
        e.backendKeepAlive = delimited && HttpUtil.isKeepAlive(r);
        // A close-delimited body can only be relayed close-delimited.
        e.frontKeepAlive = delimited && e.clientKeepAlive;
        ForwardHeaders.sanitizeResponse(r, false);
        r.setProtocolVersion(HttpVersion.HTTP_1_1);
        if (!e.frontKeepAlive) {
            r.headers().set(HttpHeaderNames.CONNECTION, "close");
        }
        ctx.write(r, ctx.voidPromise());
    }

    private void onResponseContent(Exchange e, HttpContent c) {
        boolean last = c instanceof LastHttpContent;
        if (e.switching) {
            ctx.write(c, ctx.voidPromise());
            if (last) {
                switchProtocols(e);
            }
            return;
        }
        if (e.informational) {
            ctx.write(c, ctx.voidPromise());
            if (last) {
                e.informational = false;
                ctx.flush();
            }
            return;
        }
        if (!e.responseStarted) {
            c.release();
            return;
        }
        if (!last) {
            ctx.write(c, ctx.voidPromise());
            return;
        }
        e.responseComplete = true;
        ctx.writeAndFlush(c, ctx.voidPromise());
        cancelTimers(e);
        core.metrics.request(e.status, e.startNanos);
        if (!e.backendKeepAlive || !e.requestComplete) {
            closeBackend();
        }
        if (!e.requestComplete) {
            // The backend answered before the body was fully sent (e.g. 413): the rest of the body
            // cannot be framed for the next request, so this connection ends here.
            e.frontKeepAlive = false;
            ex = null;
            releasePending(e);
            closeAfterFlush();
            return;
        }
        finishExchange(e);
    }

    void onBackendReadComplete(Channel ch) {
        if (ch != backend) {
            return;
        }
        ctx.flush(); // SSE and other streams: each backend read goes out at once
        Exchange e = ex;
        if (e == null) {
            ch.read(); // idle keep-alive: keep watching so a backend close is noticed
        } else if (e.attached && !e.responseComplete && ctx.channel().isWritable()) {
            ch.read();
        }
    }

    void onBackendWritabilityChanged(Channel ch) {
        Exchange e = ex;
        if (ch == backend && ch.isWritable() && e != null && e.attached && !e.requestComplete) {
            ctx.read();
        }
    }

    void onBackendClosed(Channel ch) {
        if (ch != backend) {
            return;
        }
        backend = null;
        backendAddr = null;
        Exchange e = ex;
        if (e == null || !e.attached || e.responseComplete) {
            return;
        }
        if (e.reusedBackend
                && !e.retriedStale
                && !e.responseStarted
                && !e.switching
                && e.bodyless
                && e.requestComplete) {
            // The keep-alive connection was closed under us before any response: safe to resend a
            // bodyless request once on a fresh connection.
            e.retriedStale = true;
            e.attached = false;
            cancel(e.headerDeadline);
            e.pending.add(LastHttpContent.EMPTY_LAST_CONTENT);
            connect(e);
            return;
        }
        if (!e.responseStarted && !e.switching) {
            respondError(e, 502, "The backend sandbox closed the connection: " + e.id());
        } else {
            ctx.close(); // mid-body: the client must see a truncated response, not a clean end
        }
    }

    private void switchProtocols(Exchange e) {
        cancelTimers(e);
        core.metrics.request(101, e.startNanos);
        Channel front = ctx.channel();
        Channel back = backend;
        ex = null;
        backend = null;
        backendAddr = null;
        ctx.flush();
        Tunnel tunnel = new Tunnel(front, back, core.metrics);
        // Remove the HTTP codecs only after the relays are in place: bytes the backend sent right
        // after its 101 are still in the client codec's buffer and flow into the relay on removal.
        ChannelPipeline fp = front.pipeline();
        fp.replace(this, "relay", tunnel.clientSide());
        fp.remove(HttpServerCodec.class);
        if (fp.get("idle") != null) {
            fp.remove("idle"); // an upgraded connection may stay quiet for as long as it likes
        }
        ChannelPipeline bp = back.pipeline();
        bp.replace(BackendHandler.class, "relay", tunnel.backendSide());
        bp.remove(HttpClientCodec.class);
        front.read();
        back.read();
    }

    // ---------------------------------------------------------------- local answers and timers

    private void respondError(Exchange e, int status, String detail) {
        respondLocally(e, JsonResponses.error(ctx.alloc(), status, detail), false);
    }

    /**
     * Answers from the router itself. Keeps the connection if the request had no body left to read;
     * otherwise answers with Connection: close, discards the rest of the body, then closes.
     */
    private void respondLocally(Exchange e, FullHttpResponse resp, boolean forceClose) {
        if (e.attached) {
            closeBackend();
        }
        cancelTimers(e);
        releasePending(e);
        e.rejected = true;
        e.responseStarted = true;
        e.responseComplete = true;
        e.status = resp.status().code();
        e.frontKeepAlive = !forceClose && e.clientKeepAlive && (e.requestComplete || e.bodyless);
        if (!e.frontKeepAlive) {
            resp.headers().set(HttpHeaderNames.CONNECTION, "close");
        }
        core.metrics.request(e.status, e.startNanos);
        ctx.writeAndFlush(resp, ctx.voidPromise());
        if (e.requestComplete) {
            finishExchange(e);
        } else {
            if (!e.frontKeepAlive) {
                // Bound the discard of a body nobody will read.
                e.deadline = ctx.executor()
                        .schedule(() -> ctx.close(), core.config.proxyTimeout().toMillis(), TimeUnit.MILLISECONDS);
            }
            ctx.read();
        }
    }

    private void finishExchange(Exchange e) {
        if (ex != e) {
            return;
        }
        ex = null;
        cancelTimers(e);
        releasePending(e);
        if (!e.frontKeepAlive) {
            closeAfterFlush();
            return;
        }
        drainPipelined();
        if (ex == null && pipelined.isEmpty() && !closed) {
            ctx.read();
        }
    }

    private void drainPipelined() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            while (!pipelined.isEmpty() && !closed) {
                Object m = pipelined.peek();
                if (m instanceof HttpRequest && ex != null) {
                    break;
                }
                pipelined.poll();
                dispatch(m);
            }
        } finally {
            draining = false;
        }
    }

    private void onDeadline(Exchange e) {
        if (ex != e || closed) {
            return;
        }
        core.metrics.timeout();
        closeBackend();
        if (!e.responseStarted) {
            respondError(
                    e,
                    504,
                    "Request to the backend sandbox " + e.id() + " exceeded the proxy timeout of "
                            + core.config.proxyTimeout().toSeconds() + "s.");
        } else {
            ctx.close();
        }
    }

    private void scheduleHeaderTimeout(Exchange e) {
        cancel(e.headerDeadline);
        e.headerDeadline = ctx.executor()
                .schedule(
                        () -> {
                            if (ex == e && !e.responseStarted && !e.switching && !closed) {
                                core.metrics.timeout();
                                closeBackend();
                                respondError(
                                        e,
                                        504,
                                        "Timed out waiting for response headers from the backend sandbox: " + e.id());
                            }
                        },
                        core.config.responseHeaderTimeout().toMillis(),
                        TimeUnit.MILLISECONDS);
    }

    private void closeAfterFlush() {
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    private void closeBackend() {
        Channel b = backend;
        if (b != null) {
            backend = null;
            backendAddr = null;
            b.close();
        }
    }

    private static void cancelTimers(Exchange e) {
        cancel(e.deadline);
        cancel(e.headerDeadline);
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }

    private static void releasePending(Exchange e) {
        HttpContent c;
        while ((c = e.pending.poll()) != null) {
            c.release();
        }
    }

    private static Throwable failure(CompletableFuture<?> f) {
        if (!f.isCompletedExceptionally()) {
            return null;
        }
        try {
            f.join();
            return null;
        } catch (CompletionException ce) {
            return ce.getCause() != null ? ce.getCause() : ce;
        } catch (RuntimeException re) {
            return re;
        }
    }

    private static boolean isUnreachable(Throwable t) {
        if (t instanceof ConnectTimeoutException || t instanceof java.net.NoRouteToHostException) {
            return true;
        }
        String m = t.getMessage();
        return m != null
                && (m.contains("No route to host") || m.contains("Host is unreachable") || m.contains("timed out"));
    }

    private static String pathOf(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
    }
}
