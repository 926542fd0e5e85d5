package io.sandboxd.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * logback configured in code (no XML: Joran's parser would cost startup time) for the daemon, the
 * controller and the router alike: one stderr appender whose encoder is the chosen {@link
 * LogFormat}; the root at INFO (or the {@link LogLevel} given), Jetty, Javalin, fabric8 and JOSDK
 * at WARN (their INFO chatter would drown the binaries' own lines) unless the level is stricter or
 * debug and finer; java.util.logging (grpc-java logs through it) bridged into
 * SLF4J so its warnings come out in the same format.
 */
public final class LogSetup {
    /**
     * The binaries' own human-readable lines go through this logger and its children
     * ("sandboxd.controller"...): the text format prints them bare.
     */
    public static final String DAEMON = "sandboxd";

    /** The daemon's one line per request: the text format prefixes it with its instant. */
    public static final String REQUEST = DAEMON + ".request";

    private static final java.util.List<String> QUIET =
            java.util.List.of("org.eclipse.jetty", "io.javalin", "io.fabric8", "io.javaoperatorsdk");

    private LogSetup() {}

    /** Switches the process's logging to {@code format} at the default level; called once the flags are parsed. */
    public static void install(LogFormat format) {
        install(format, LogLevel.DEFAULT);
    }

    /** Switches the process's logging to {@code format} and the root to {@code level} (--zap-log-level). */
    public static void install(LogFormat format, LogLevel level) {
        configure(context(), format, level);
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }

    private static LoggerContext context() {
        ILoggerFactory f = LoggerFactory.getILoggerFactory();
        if (f instanceof LoggerContext ctx) {
            return ctx;
        }
        // only if a second SLF4J provider came first on the class path, or SLF4J is still being
        // initialised by another thread (cli/Main waits for the preloader, which initialises it)
        throw new IllegalStateException(
                "logging is not logback (SLF4J factory " + f.getClass().getSimpleName() + ")");
    }

    static void configure(LoggerContext ctx, LogFormat format) {
        configure(ctx, format, LogLevel.DEFAULT);
    }

    static void configure(LoggerContext ctx, LogFormat format, LogLevel level) {
        ctx.reset();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(ctx);
        stderr.setName("stderr");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder(ctx, format));
        stderr.start();
        Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
        // java.util.logging filters before the bridge sees a record: it gets the same levels
        LevelChangePropagator jul = new LevelChangePropagator();
        jul.setContext(ctx);
        jul.setResetJUL(true);
        jul.start();
        ctx.addListener(jul);
        Level rootLevel = Level.toLevel(level.name());
        root.setLevel(rootLevel);
        root.addAppender(stderr);
        // at the default only the libraries' warnings; a stricter level holds for them too, and
        // debug or finer is asked for when something is being chased, so they follow it
        Level libraries = rootLevel == Level.INFO ? Level.WARN : rootLevel;
        for (String library : QUIET) {
            ctx.getLogger(library).setLevel(libraries);
        }
    }

    public static Encoder<ILoggingEvent> encoder(LoggerContext ctx, LogFormat format) {
        Encoder<ILoggingEvent> encoder = format == LogFormat.JSON ? new JsonLineEncoder() : new TextEncoder();
        encoder.setContext(ctx);
        encoder.start();
        return encoder;
    }
}
