package io.sandboxd.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.encoder.EncoderBase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The human format, the daemon's lines as they always were: its own ({@code sandboxd.*} loggers)
 * as the bare message ("sandboxd: listening …"), the request log prefixed by its instant, and any
 * other line (a library's, the controller's and router's class loggers) as {@code <instant> LEVEL
 * [thread] logger - message key=value…} with any stack trace.
 */
public final class TextEncoder extends EncoderBase<ILoggingEvent> {
    private static final byte[] NONE = new byte[0];

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
        StringBuilder sb = new StringBuilder(160);
        String logger = e.getLoggerName();
        if (logger.equals(LogSetup.REQUEST)) {
            sb.append(Instant.ofEpochMilli(e.getTimeStamp())).append(' ').append(e.getFormattedMessage());
        } else if (logger.equals(LogSetup.DAEMON) || logger.startsWith(LogSetup.DAEMON + '.')) {
            sb.append(e.getFormattedMessage());
        } else {
            sb.append(Instant.ofEpochMilli(e.getTimeStamp()))
                    .append(' ')
                    .append(e.getLevel())
                    .append(" [")
                    .append(e.getThreadName())
                    .append("] ")
                    .append(logger)
                    .append(" - ")
                    .append(e.getFormattedMessage());
            appendPairs(sb, e.getKeyValuePairs());
        }
        sb.append(CoreConstants.LINE_SEPARATOR);
        if (e.getThrowableProxy() != null) {
            sb.append(ThrowableProxyUtil.asString(e.getThrowableProxy())).append(CoreConstants.LINE_SEPARATOR);
        }
        return sb.toString();
    }

    /** A line in the library format keeps its fields, as {@code key=value} after the message. */
    private static void appendPairs(StringBuilder sb, java.util.List<org.slf4j.event.KeyValuePair> pairs) {
        if (pairs != null) {
            for (org.slf4j.event.KeyValuePair kv : pairs) {
                sb.append(' ').append(kv.key).append('=').append(kv.value);
            }
        }
    }
}
