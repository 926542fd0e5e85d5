package io.sandboxd.daemon.logging;

import io.sandboxd.logging.LogSetup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per REST request or gRPC call, through the {@value #LOGGER} logger: a readable message
 * plus typed fields (numbers as numbers) that the JSON format writes as its own keys. Only metadata
 * is logged: never a request body, header value or token. Targets are escaped in the message so a
 * hostile path cannot forge extra text lines (the JSON encoder escapes the raw field).
 */
public final class RequestLog {
    public static final String LOGGER = LogSetup.REQUEST;

    private final Logger logger;

    public RequestLog(Logger logger) {
        this.logger = logger;
    }

    public static RequestLog slf4j() {
        return new RequestLog(LoggerFactory.getLogger(LOGGER));
    }

    /**
     * @param transport "rest" or "grpc"
     * @param method    HTTP method, or "unary"/"stream" for gRPC
     * @param target    request path or full RPC method name
     * @param status    HTTP status code or gRPC status code name
     */
    public void log(
            String transport,
            String method,
            String target,
            String status,
            long durationNanos,
            long bytesIn,
            long bytesOut) {
        if (!logger.isInfoEnabled()) {
            return;
        }
        StringBuilder sb = new StringBuilder(128);
        sb.append(transport).append(' ');
        appendEscaped(sb, method);
        sb.append(' ');
        appendEscaped(sb, target);
        sb.append(" status=");
        appendEscaped(sb, status);
        sb.append(" duration_ms=");
        appendMillis(sb, durationNanos);
        sb.append(" bytes_in=").append(bytesIn).append(" bytes_out=").append(bytesOut);
        logger.atInfo()
                .addKeyValue("transport", transport)
                .addKeyValue("method", method)
                .addKeyValue("target", target)
                .addKeyValue("status", status)
                .addKeyValue("duration_ms", ((Math.max(durationNanos, 0) + 500) / 1000) / 1000.0)
                .addKeyValue("bytes_in", bytesIn)
                .addKeyValue("bytes_out", bytesOut)
                .log(sb.toString());
    }

    /** Milliseconds with three decimals, as {@code %.3f} would print them, without a Formatter per line. */
    static void appendMillis(StringBuilder sb, long nanos) {
        long micros = (Math.max(nanos, 0) + 500) / 1000;
        long frac = micros % 1000;
        sb.append(micros / 1000).append('.');
        if (frac < 100) {
            sb.append(frac < 10 ? "00" : "0");
        }
        sb.append(frac);
    }

    static void appendEscaped(StringBuilder sb, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || c == ' ' || c == '\\') {
                sb.append(String.format("\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
    }
}
