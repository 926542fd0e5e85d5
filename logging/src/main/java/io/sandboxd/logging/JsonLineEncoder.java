package io.sandboxd.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.slf4j.event.KeyValuePair;

/**
 * One JSON object per event: {@code time} (RFC 3339), {@code level}, {@code logger}, {@code
 * thread}, {@code message}, then the event's key/value pairs as top-level fields, typed (a Number
 * or Boolean is written bare, anything else as a string), then {@code error} with the stack trace.
 * logback's own JsonEncoder writes every value as a string and the time as epoch milliseconds,
 * which is why the daemon has this one.
 */
public final class JsonLineEncoder extends EncoderBase<ILoggingEvent> {
    private static final byte[] NONE = new byte[0];
    private static final List<String> RESERVED = List.of("time", "level", "logger", "thread", "message", "error");

    @Override
    public byte[] headerBytes() {
        return NONE;
    }

    @Override
    public byte[] footerBytes() {
        return NONE;
    }

    @Override
    public byte[] encode(ILoggingEvent e) {
        return line(e).getBytes(StandardCharsets.UTF_8);
    }

    static String line(ILoggingEvent e) {
        StringBuilder sb = new StringBuilder(256);
        sb.append("{\"time\":\"")
                .append(Instant.ofEpochMilli(e.getTimeStamp()).plusNanos(e.getNanoseconds() % 1_000_000));
        sb.append("\",\"level\":\"").append(e.getLevel()).append("\",\"logger\":");
        JsonText.appendString(sb, e.getLoggerName());
        sb.append(",\"thread\":");
        JsonText.appendString(sb, String.valueOf(e.getThreadName()));
        sb.append(",\"message\":");
        JsonText.appendString(sb, String.valueOf(e.getFormattedMessage()));
        List<KeyValuePair> pairs = e.getKeyValuePairs();
        if (pairs != null) {
            for (KeyValuePair kv : pairs) {
                // a pair may not overwrite the fields every line has: it keeps them parseable by one schema
                String key = RESERVED.contains(kv.key) ? "kv_" + kv.key : kv.key;
                sb.append(',');
                JsonText.appendString(sb, key);
                sb.append(':');
                appendValue(sb, kv.value);
            }
        }
        if (e.getThrowableProxy() != null) {
            sb.append(",\"error\":");
            JsonText.appendString(sb, ThrowableProxyUtil.asString(e.getThrowableProxy()));
        }
        return sb.append("}\n").toString();
    }

    static void appendValue(StringBuilder sb, Object v) {
        if (v instanceof Double d && (d.isNaN() || d.isInfinite())
                || v instanceof Float f && (f.isNaN() || f.isInfinite())) {
            JsonText.appendString(sb, v.toString()); // JSON has no NaN/Infinity
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else {
            JsonText.appendString(sb, String.valueOf(v));
        }
    }
}
