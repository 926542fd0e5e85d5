package io.sandboxd.daemon.fs.watch;

import java.time.Duration;

/**
 * The bounds of the filesystem watch (runtime-contract §4.2), each a daemon flag.
 *
 * @param maxWatchers    open watch streams, and watches kept for resuming, at most (--watch-max-watchers)
 * @param maxDirectories directories one watch may cover (--watch-max-directories)
 * @param retainedEvents events each watch keeps for clients that resume (--watch-retained-events)
 * @param memoryBytes    heap all retained events may take together; beyond it the oldest go (--watch-memory)
 * @param heartbeat      a comment on a stream idle this long (--watch-heartbeat)
 * @param linger         how long a watch outlives its last stream, so a reconnect resumes (--watch-linger)
 */
public record WatchSettings(
        int maxWatchers,
        int maxDirectories,
        int retainedEvents,
        long memoryBytes,
        Duration heartbeat,
        Duration linger) {
    public static final int DEFAULT_MAX_WATCHERS = 64;
    public static final int DEFAULT_MAX_DIRECTORIES = 8192;
    public static final int DEFAULT_RETAINED_EVENTS = 65536;
    public static final long DEFAULT_MEMORY_BYTES = 32L * 1024 * 1024;

    public static WatchSettings defaults() {
        return new WatchSettings(
                DEFAULT_MAX_WATCHERS,
                DEFAULT_MAX_DIRECTORIES,
                DEFAULT_RETAINED_EVENTS,
                DEFAULT_MEMORY_BYTES,
                Duration.ofSeconds(15),
                Duration.ofMinutes(1));
    }
}
