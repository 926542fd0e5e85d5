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

    @Option(
            names = "--watch-heartbeat",
            defaultValue = "15s",
            converter = GoDurationConverter.class,
            description = "A comment on a watch stream idle this long "
                    + "(env SANDBOXD_WATCH_HEARTBEAT, default ${DEFAULT-VALUE}).")
    Duration heartbeat;

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
        if (heartbeat.compareTo(Duration.ofMillis(100)) < 0 || heartbeat.compareTo(httpIdleTimeout) >= 0) {
            throw bad(
                    cmd,
                    "--watch-heartbeat must be at least 100ms and shorter than --http-idle-timeout (got " + heartbeat
                            + ")");
        }
        if (linger.isNegative()) {
            throw bad(cmd, "--watch-linger must not be negative (got " + linger + ")");
        }
        return new WatchSettings(maxWatchers, maxDirectories, retainedEvents, memory, heartbeat, linger);
    }

    private static CommandLine.ParameterException bad(CommandLine cmd, String message) {
        return new CommandLine.ParameterException(cmd, message);
    }
}
