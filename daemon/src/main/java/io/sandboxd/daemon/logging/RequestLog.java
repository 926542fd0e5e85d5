package io.sandboxd.daemon.logging;

import io.sandboxd.daemon.json.JsonText;
import java.io.PrintStream;
import java.time.Instant;

/**
 * One structured line per REST request or gRPC call, on stderr. Only metadata is logged:
 * never a request body, header value or token. Targets (paths) are escaped so a hostile path
 * cannot forge extra log lines.
 */
public final class RequestLog {
    private final LogFormat format;
    private final PrintStream out;

    public RequestLog(LogFormat format, PrintStream out) {
        this.format = format;
        this.out = out;
    }

    public static RequestLog stderr(LogFormat format) {
        return new RequestLog(format, System.err);
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
        StringBuilder sb = new StringBuilder(160);
        String ts = Instant.now().toString();
        if (format == LogFormat.JSON) {
            sb.append("{\"ts\":\"")
                    .append(ts)
                    .append("\",\"transport\":\"")
                    .append(transport)
                    .append("\",\"method\":");
            JsonText.appendString(sb, method);
            sb.append(",\"target\":");
            JsonText.appendString(sb, target);
            sb.append(",\"status\":");
            JsonText.appendString(sb, status);
            sb.append(",\"duration_ms\":");
            appendMillis(sb, durationNanos);
            sb.append(",\"bytes_in\":")
                    .append(bytesIn)
                    .append(",\"bytes_out\":")
                    .append(bytesOut)
                    .append('}');
        } else {
            sb.append(ts).append(' ').append(transport).append(' ');
            appendEscaped(sb, method);
            sb.append(' ');
            appendEscaped(sb, target);
            sb.append(" status=");
            appendEscaped(sb, status);
            sb.append(" duration_ms=");
            appendMillis(sb, durationNanos);
            sb.append(" bytes_in=").append(bytesIn).append(" bytes_out=").append(bytesOut);
        }
        out.println(sb);
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
