package io.sandboxd.router.proxy;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Pure header rules of the HTTP/2 path: the routing view of a request (gRPC metadata
 * {@code x-sandbox-id}, {@code x-sandbox-namespace}, {@code x-sandbox-port}, ...), the request sent
 * to the Pod, and the router's own answers, as gRPC status when the caller speaks gRPC.
 */
final class H2Headers {
    static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
    static final AsciiString GRPC_MESSAGE = AsciiString.cached("grpc-message");
    private static final AsciiString GRPC_CONTENT_TYPE = AsciiString.cached("application/grpc");
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private H2Headers() {}

    /** The regular (non-pseudo) fields as HTTP/1.1-style headers, for the route parser and the authorizer. */
    static HttpHeaders routingView(Http2Headers h) {
        HttpHeaders out = new DefaultHttpHeaders();
        for (Map.Entry<CharSequence, CharSequence> e : h) {
            if (e.getKey().length() > 0 && e.getKey().charAt(0) != ':') {
                out.add(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /** Whether the caller speaks gRPC ({@code content-type: application/grpc[+proto|...]}). */
    static boolean isGrpc(Http2Headers h) {
        CharSequence ct = h.get(HttpHeaderNames.CONTENT_TYPE);
        return ct != null && AsciiString.regionMatches(ct, true, 0, GRPC_CONTENT_TYPE, 0, GRPC_CONTENT_TYPE.length());
    }

    /**
     * The request for the Pod: same method, metadata, {@code te} and {@code grpc-timeout} (deadlines
     * unchanged), with {@code :path} the route's forward target, {@code :authority} the backend's,
     * the caller's credentials removed (no sandbox may replay them) and X-Forwarded-* replaced.
     */
    static Http2Headers forBackend(Http2Headers in, String path, String authority, String clientIp) {
        Http2Headers h = new DefaultHttp2Headers(false, in.size() + 4);
        CharSequence originalAuthority = in.authority();
        for (Map.Entry<CharSequence, CharSequence> e : in) {
            CharSequence k = e.getKey();
            if (AsciiString.contentEqualsIgnoreCase(k, HttpHeaderNames.AUTHORIZATION)
                    || AsciiString.contentEqualsIgnoreCase(k, HttpHeaderNames.PROXY_AUTHORIZATION)
                    || AsciiString.contentEqualsIgnoreCase(k, HttpHeaderNames.HOST)
                    || AsciiString.contentEqualsIgnoreCase(k, "x-forwarded-for")
                    || AsciiString.contentEqualsIgnoreCase(k, "x-forwarded-host")
                    || AsciiString.contentEqualsIgnoreCase(k, "x-forwarded-proto")) {
                continue;
            }
            h.add(k, e.getValue());
        }
        h.path(path).authority(authority).scheme("http");
        if (clientIp != null) {
            h.set("x-forwarded-for", clientIp);
        }
        if (originalAuthority != null) {
            h.set("x-forwarded-host", originalAuthority);
        }
        h.set("x-forwarded-proto", "http");
        return h;
    }

    /** A gRPC "Trailers-Only" answer: the router's refusal as a status the caller's stub understands. */
    static Http2Headers grpcError(int httpStatus, String detail) {
        return new DefaultHttp2Headers()
                .status("200")
                .set(HttpHeaderNames.CONTENT_TYPE, GRPC_CONTENT_TYPE)
                .setInt(GRPC_STATUS, grpcStatus(httpStatus))
                .set(GRPC_MESSAGE, grpcMessage(detail));
    }

    /**
     * The gRPC code for the router's HTTP status: what the refusal means to an RPC caller (gRPC's own
     * HTTP mapping would call every 4xx INTERNAL or UNKNOWN).
     */
    static int grpcStatus(int httpStatus) {
        return switch (httpStatus) {
            case 400, 414, 431 -> 3; // INVALID_ARGUMENT
            case 401 -> 16; // UNAUTHENTICATED
            case 403 -> 7; // PERMISSION_DENIED
            case 404, 405, 501, 505 -> 12; // UNIMPLEMENTED
            case 500 -> 13; // INTERNAL
            case 502, 503 -> 14; // UNAVAILABLE
            case 504 -> 4; // DEADLINE_EXCEEDED
            default -> 2; // UNKNOWN
        };
    }

    /** gRPC's percent-encoding of {@code grpc-message}: UTF-8, every byte outside 0x20..0x7e and '%' escaped. */
    static String grpcMessage(String detail) {
        byte[] b = detail.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(b.length);
        for (byte x : b) {
            int c = x & 0xff;
            if (c >= 0x20 && c <= 0x7e && c != '%') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }
}
