package io.sandboxd.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How to watch (runtime-contract §4.2): recursively or not, what to exclude, where to resume, and
 * how to survive a broken connection. Immutable; each setter returns a changed copy.
 */
public final class WatchOptions {
    private final boolean recursive;
    private final List<String> excludes;
    private final Long cursor;
    private final boolean reconnect;
    private final Duration idleTimeout;

    private WatchOptions(
            boolean recursive, List<String> excludes, Long cursor, boolean reconnect, Duration idleTimeout) {
        this.recursive = recursive;
        this.excludes = List.copyOf(excludes);
        this.cursor = cursor;
        this.reconnect = reconnect;
        this.idleTimeout = idleTimeout;
    }

    /** Not recursive, nothing excluded, live events only, reconnecting, 60 s without a byte is a dead connection. */
    public static WatchOptions defaults() {
        return new WatchOptions(false, List.of(), null, true, Duration.ofSeconds(60));
    }

    /** Watch every directory below too. */
    public WatchOptions recursive(boolean recursive) {
        return new WatchOptions(recursive, excludes, cursor, reconnect, idleTimeout);
    }

    /** Adds exclude globs ({@code .git}, {@code node_modules}, {@code build/out}, {@code *.log}). */
    public WatchOptions exclude(String... globs) {
        List<String> all = new ArrayList<>(excludes);
        all.addAll(List.of(globs));
        return new WatchOptions(recursive, all, cursor, reconnect, idleTimeout);
    }

    /** Start after this event id of the same watch (a {@code resync} first when it is no longer retained). */
    public WatchOptions cursor(long afterEventId) {
        if (afterEventId < 0) {
            throw new IllegalArgumentException("cursor must be >= 0");
        }
        return new WatchOptions(recursive, excludes, afterEventId, reconnect, idleTimeout);
    }

    /**
     * Whether a broken connection (or a daemon restart) is followed by a new one that resumes after
     * the last event received (default true: with a growing pause, 0.2 s up to 5 s, until closed).
     */
    public WatchOptions reconnect(boolean reconnect) {
        return new WatchOptions(recursive, excludes, cursor, reconnect, idleTimeout);
    }

    /**
     * A connection silent this long (no event, no heartbeat) is taken for dead and, with
     * {@link #reconnect}, replaced; keep it above the daemon's {@code --watch-heartbeat} (15 s).
     */
    public WatchOptions idleTimeout(Duration idleTimeout) {
        return new WatchOptions(recursive, excludes, cursor, reconnect, idleTimeout);
    }

    public boolean recursive() {
        return recursive;
    }

    public List<String> excludes() {
        return excludes;
    }

    /** The starting cursor, or null for live events only. */
    public Long cursor() {
        return cursor;
    }

    public boolean reconnect() {
        return reconnect;
    }

    public Duration idleTimeout() {
        return idleTimeout;
    }
}
