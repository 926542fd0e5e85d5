package io.sandboxd.router.proxy;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;

/** Pure header rewriting between client and backend (RFC 9110 §7.6.1 hop-by-hop rules). */
public final class ForwardHeaders {
    private static final CharSequence[] HOP_BY_HOP = {
        HttpHeaderNames.CONNECTION,
        HttpHeaderNames.KEEP_ALIVE,
        "proxy-connection",
        HttpHeaderNames.PROXY_AUTHENTICATE,
        HttpHeaderNames.PROXY_AUTHORIZATION,
        HttpHeaderNames.TE,
        HttpHeaderNames.TRAILER,
        HttpHeaderNames.UPGRADE,
    };

    private ForwardHeaders() {}

    /** {@code Connection: upgrade} (as a token) plus an {@code Upgrade} header. */
    public static boolean isUpgrade(HttpHeaders h) {
        return h.contains(HttpHeaderNames.UPGRADE)
                && h.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true);
    }

    /**
     * The request to send to the backend. Always removes {@code Authorization} (no sandbox may replay
     * the caller's credential) and hop-by-hop headers; removes {@code Origin} on upgrades only (Host
     * is rewritten, so a kept Origin trips the backend's cross-origin check); replaces
     * X-Forwarded-For/-Host/-Proto. Content-Length / Transfer-Encoding are kept: the body is streamed
     * with the framing it arrived in.
     */
    public static HttpRequest forBackend(
            HttpRequest in, String forwardUri, String hostHeader, String clientIp, boolean upgrade) {
        HttpHeaders h = in.headers().copy();
        String originalHost = h.get(HttpHeaderNames.HOST);
        String upgradeProto = upgrade ? h.get(HttpHeaderNames.UPGRADE) : null;
        stripHopByHop(h);
        h.remove(HttpHeaderNames.AUTHORIZATION);
        h.remove(HttpHeaderNames.HOST);
        h.remove("x-forwarded-for");
        h.remove("x-forwarded-host");
        h.remove("x-forwarded-proto");
        h.set(HttpHeaderNames.HOST, hostHeader);
        if (clientIp != null) {
            h.set("X-Forwarded-For", clientIp);
        }
        if (originalHost != null) {
            h.set("X-Forwarded-Host", originalHost);
        }
        h.set("X-Forwarded-Proto", "http");
        if (upgrade) {
            h.remove(HttpHeaderNames.ORIGIN);
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
            h.set(HttpHeaderNames.UPGRADE, upgradeProto);
        }
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, in.method(), forwardUri, h);
    }

    /** Strips hop-by-hop headers from a backend response, keeping Upgrade/Connection on a 101. */
    public static void sanitizeResponse(HttpResponse r, boolean switching) {
        HttpHeaders h = r.headers();
        String upgradeProto = switching ? h.get(HttpHeaderNames.UPGRADE) : null;
        stripHopByHop(h);
        if (switching) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
            if (upgradeProto != null) {
                h.set(HttpHeaderNames.UPGRADE, upgradeProto);
            }
        }
    }

    private static void stripHopByHop(HttpHeaders h) {
        // Headers named by Connection are hop-by-hop too.
        List<String> named = new ArrayList<>();
        for (String v : h.getAll(HttpHeaderNames.CONNECTION)) {
            for (String token : v.split(",")) {
                String t = token.trim();
                if (!t.isEmpty()) {
                    named.add(t);
                }
            }
        }
        for (String n : named) {
            // Never let a Connection token strip the message framing we forward as-is.
            if (!n.equalsIgnoreCase("content-length") && !n.equalsIgnoreCase("transfer-encoding")) {
                h.remove(n);
            }
        }
        for (CharSequence n : HOP_BY_HOP) {
            h.remove(n);
        }
    }
}
