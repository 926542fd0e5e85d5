package io.sandboxd.router.proxy;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * RFC 9112 framing rules the router enforces on a decoded request head before anything is
 * forwarded, beyond what Netty's decoder already refuses (bare CR or LF line ends, whitespace before
 * a header colon, CTLs in header names and values, Content-Length lists, repeated or unparsable
 * Content-Length, Content-Length with Transfer-Encoding, Transfer-Encoding in HTTP/1.0, a coding
 * other than chunked alone or twice). Pure; every rule is tested end to end (the backend must
 * receive nothing), together with the decoder's.
 */
public final class RequestFraming {
    /** Longest request line the decoder takes (the limit named in its 414). */
    public static final int MAX_REQUEST_LINE = 16 * 1024;
    /** Largest header block the decoder takes (the limit named in its 431). */
    public static final int MAX_HEADER_BYTES = 64 * 1024;

    private static final int MAX_ECHO = 40;

    /** A refusal: the status and the JSON detail. */
    public record Refusal(int status, String detail) {}

    private RequestFraming() {}

    /** What the decoder itself refused, with the limit named when a limit was the cause. */
    public static Refusal decoderFailure(DecoderResult r) {
        Throwable t = r.cause();
        if (t instanceof TooLongHttpLineException) {
            return new Refusal(414, "Request line longer than " + MAX_REQUEST_LINE + " bytes.");
        }
        if (t instanceof TooLongHttpHeaderException) {
            return new Refusal(431, "Request headers larger than " + MAX_HEADER_BYTES + " bytes.");
        }
        return new Refusal(400, "Malformed HTTP request.");
    }

    public static Optional<Refusal> check(HttpRequest req) {
        String target = req.uri();
        Optional<Refusal> t = targetAndMethod(req.method().name(), target, false);
        if (t.isPresent()) {
            return t;
        }
        HttpVersion v = req.protocolVersion();
        boolean http11 = v.majorVersion() == 1 && v.minorVersion() == 1;
        if (!http11 && !(v.majorVersion() == 1 && v.minorVersion() == 0)) {
            return refuse(
                    505,
                    "HTTP version " + v.text()
                            + " is not supported (HTTP/1.0, HTTP/1.1, HTTP/2 with prior knowledge or h2c).");
        }
        HttpHeaders h = req.headers();
        int hosts = h.getAll(HttpHeaderNames.HOST).size();
        if (hosts > 1 || (http11 && hosts == 0)) {
            return refuse(400, "An HTTP/1.1 request needs exactly one Host header, not " + hosts + ".");
        }
        List<String> codings = h.getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (!codings.isEmpty()) {
            String all = String.join(",", codings);
            String[] tokens = all.split(",", -1);
            String last = tokens[tokens.length - 1].trim();
            if (tokens.length > 1 || !last.equalsIgnoreCase("chunked")) {
                boolean chunkedOnceAndLast = last.equalsIgnoreCase("chunked")
                        && all.toLowerCase(Locale.ROOT).indexOf("chunked")
                                == all.toLowerCase(Locale.ROOT).lastIndexOf("chunked");
                return chunkedOnceAndLast
                        ? refuse(501, "Transfer-Encoding '" + echo(all) + "' is not supported: only chunked.")
                        : refuse(400, "Transfer-Encoding must be chunked, given once, not '" + echo(all) + "'.");
            }
        }
        return Optional.empty();
    }

    /**
     * The rules on the request target and method, shared with HTTP/2 ({@code :path}, {@code :method}):
     * no control byte or space, no CONNECT, {@code *} only with OPTIONS, and otherwise origin form
     * ({@code /path}), or over HTTP/1.1 also absolute form ({@code http://host/path}, RFC 9112 §3.2.2;
     * HTTP/2 carries the authority apart, RFC 9113 §8.3.1).
     */
    public static Optional<Refusal> targetAndMethod(String method, String target, boolean http2) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return refuse(
                        400,
                        String.format(
                                Locale.ROOT, "Request target contains control byte 0x%02x at index %d.", (int) c, i));
            }
            if (c == ' ') {
                return refuse(400, "Request target contains a space at index " + i + ".");
            }
        }
        if (HttpMethod.CONNECT.name().equals(method)) {
            return refuse(405, "CONNECT is not supported: the router is not a forward proxy.");
        }
        if ("*".equals(target)) {
            return HttpMethod.OPTIONS.name().equals(method)
                    ? Optional.empty()
                    : refuse(400, "Request target * is allowed only with OPTIONS.");
        }
        if (target.startsWith("/") || (!http2 && isAbsoluteForm(target))) {
            return Optional.empty();
        }
        return refuse(
                400,
                "Request target '" + echo(target) + "' must be a path starting with /"
                        + (http2 ? "" : " or an absolute URI (http://host/path)") + ".");
    }

    /** {@code scheme://...} with an RFC 3986 scheme. */
    private static boolean isAbsoluteForm(String target) {
        int sep = target.indexOf("://");
        if (sep <= 0) {
            return false;
        }
        for (int i = 0; i < sep; i++) {
            char c = target.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** The value of a valid Content-Length field (1 to 18 digits), or -1. */
    public static long contentLength(String value) {
        String v = value.trim();
        if (v.isEmpty() || v.length() > 18) {
            return -1;
        }
        for (int i = 0; i < v.length(); i++) {
            if (v.charAt(i) < '0' || v.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(v);
    }

    private static String echo(String s) {
        return s.length() <= MAX_ECHO ? s : s.substring(0, MAX_ECHO) + "...";
    }

    private static Optional<Refusal> refuse(int status, String detail) {
        return Optional.of(new Refusal(status, detail));
    }
}
