package io.sandboxd.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;

/** A private logback context writing one format into memory: the real encoders, no global state. */
public final class LogCapture {
    private final LoggerContext ctx = new LoggerContext();
    private final ByteArrayOutputStream buf = new ByteArrayOutputStream();

    public LogCapture(LogFormat format) {
        ctx.setMDCAdapter(
                new ch.qos.logback.classic.util.LogbackMDCAdapter()); // SLF4J's provider sets it on the global one
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        appender.setContext(ctx);
        appender.setEncoder(LogSetup.encoder(ctx, format));
        appender.setOutputStream(buf);
        appender.start();
        ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(appender);
    }

    public Logger logger(String name) {
        return ctx.getLogger(name);
    }

    public String text() {
        synchronized (buf) {
            return buf.toString(StandardCharsets.UTF_8);
        }
    }
}
