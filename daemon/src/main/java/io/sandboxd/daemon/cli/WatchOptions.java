package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.fs.watch.WatchSettings;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** The flags of the filesystem watch (runtime-contract §4.2), mixed into {@link SandboxdCommand}. */
final class WatchOptions {
    /**
     * Each stream holds a REST request thread while it lasts, of the 250 the REST listener has: at
     * most this many go to watches, the rest stay for everything else.
     */
    static final int MAX_STREAMS = 200;

    @Option(
            names = "--watch-max-watchers",
            defaultValue = "" + WatchSettings.DEFAULT_MAX_WATCHERS,
            description = "Watch streams open at once, and watches kept for resuming, at most "
                    + "(env SANDBOXD_WATCH_MAX_WATCHERS, default ${DEFAULT-VALUE}).")
    int maxWatchers;

    @Option(
            names = "--watch-max-directories",
            defaultValue = "" + WatchSettings.DEFAULT_MAX_DIRECTORIES,
            description = "Directories one watch may cover; beyond it the watch gets resync and an error "
                    + "(env SANDBOXD_WATCH_MAX_DIRECTORIES, default ${DEFAULT-VALUE}).")
    int maxDirectories;

    @Option(
            names = "--watch-retained-events",
            defaultValue = "" + WatchSettings.DEFAULT_RETAINED_EVENTS,
            description = "Events each watch retains for clients that resume "
                    + "(env SANDBOXD_WATCH_RETAINED_EVENTS, default ${DEFAULT-VALUE}).")
    int retainedEvents;

    @Option(
            names = "--watch-memory",
            defaultValue = "" + WatchSettings.DEFAULT_MEMORY_BYTES,
            description = "Bytes of heap all retained watch events may take; beyond it the oldest go "
                    + "(env SANDBOXD_WATCH_MEMORY, default ${DEFAULT-VALUE}).")
    long memory;

    /** Null when not given: then {@link #DEFAULT_HEARTBEAT}, or less under a short idle timeout. */
    @Option(
            names = "--watch-heartbeat",
            converter = GoDurationConverter.class,
            description = "A comment on a watch stream idle this long "
                    + "(env SANDBOXD_WATCH_HEARTBEAT, default 15s, or half of --http-idle-timeout when that is"
                    + " shorter).")
    Duration heartbeat;

    static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(15);
    static final Duration MIN_HEARTBEAT = Duration.ofMillis(100);

    @Option(
            names = "--watch-linger",
            defaultValue = "1m",
            converter = GoDurationConverter.class,
            description = "How long a watch outlives its last stream, so that a client reconnecting with its "
                    + "cursor resumes (env SANDBOXD_WATCH_LINGER, default ${DEFAULT-VALUE}).")
    Duration linger;

    /** Validates the flags; the heartbeat must come well within {@code --http-idle-timeout}. */
    WatchSettings toSettings(CommandLine cmd, Duration httpIdleTimeout) {
        if (maxWatchers < 1 || maxWatchers > MAX_STREAMS) {
            throw bad(cmd, "--watch-max-watchers must be in range 1-" + MAX_STREAMS + " (got " + maxWatchers + ")");
        }
        if (maxDirectories < 1) {
            throw bad(cmd, "--watch-max-directories must be at least 1 (got " + maxDirectories + ")");
        }
        if (retainedEvents < 16) {
            throw bad(cmd, "--watch-retained-events must be at least 16 (got " + retainedEvents + ")");
        }
        if (memory < 1024 * 1024) {
            throw bad(cmd, "--watch-memory must be at least 1048576 (got " + memory + ")");
        }
        // A heartbeat nobody asked for follows a short idle timeout (a stream must never be closed as
        // idle while it is only waiting for changes); one given explicitly is checked against it.
        Duration beat = heartbeat;
        if (beat == null) {
            Duration half = httpIdleTimeout.dividedBy(2);
            beat = half.compareTo(DEFAULT_HEARTBEAT) < 0 ? half : DEFAULT_HEARTBEAT;
            if (beat.compareTo(MIN_HEARTBEAT) < 0) {
                beat = MIN_HEARTBEAT;
            }
        }
        if (beat.compareTo(MIN_HEARTBEAT) < 0 || beat.compareTo(httpIdleTimeout) >= 0) {
            throw bad(
                    cmd,
                    "--watch-heartbeat must be at least 100ms and shorter than --http-idle-timeout (got " + millis(beat)
                            + " with --http-idle-timeout " + millis(httpIdleTimeout) + ")");
        }
        if (linger.isNegative()) {
            throw bad(cmd, "--watch-linger must not be negative (got " + linger + ")");
        }
        return new WatchSettings(maxWatchers, maxDirectories, retainedEvents, memory, beat, linger);
    }

    private static String millis(Duration d) {
        return d.toMillis() + "ms";
    }

    private static CommandLine.ParameterException bad(CommandLine cmd, String message) {
        return new CommandLine.ParameterException(cmd, message);
    }
}
