package io.sandboxd.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A filesystem watch (runtime-contract §4.2): {@code GET /sandboxd/v1alpha1/watch} read as
 * Server-Sent Events, one {@link WatchEvent} per {@link #next()}. When the connection breaks (or
 * the daemon restarts, or nothing arrived for {@link WatchOptions#idleTimeout}), it connects again
 * with {@code Last-Event-ID} set to the last event received, so nothing is missed or repeated: the
 * daemon sends every event after it, or {@code resync} when it no longer retains them (then list
 * the tree again). An {@code error} event is the last one, except for the daemon's shutdown, after
 * which it reconnects like after a broken connection.
 *
 * <p>Pull: one thread calls {@link #next()}; {@link #close()} from any thread ends it (a thread
 * of its own per watch closes connections that stay silent past the idle timeout). Push:
 * {@link SandboxdClient#watch(String, WatchOptions, WatchListener)}.
 */
public final class FileWatch implements AutoCloseable {
    private static final long FIRST_PAUSE_MILLIS = 200;
    private static final long MAX_PAUSE_MILLIS = 5000;

    /** Opens one stream: the response body, or a {@link SandboxdException} (a {@link RestCallException} for an HTTP error). */
    interface Connector {
        InputStream open(String shownPath, String query, Long lastEventId);
    }

    private final Connector connector;
    private final String path;
    private final WatchOptions options;
    private volatile boolean closed;
    private volatile InputStream body;
    private volatile long lastActivity = System.nanoTime();
    private BufferedReader reader;
    private long lastId = -1;
    private boolean ended;
    private boolean reconnecting;
    private long pause = FIRST_PAUSE_MILLIS;
    private int connections;
    private Thread watchdog;

    FileWatch(Connector connector, String path, WatchOptions options) {
        this.connector = connector;
        this.path = RestPaths.display(path);
        this.options = options;
    }

    /** The watched path ({@code /a/b}). */
    public String path() {
        return path;
    }

    /** The id of the last event received, or -1 before the first: where a new watch would resume. */
    public long cursor() {
        return lastId;
    }

    /** How many connections were opened (1 + reconnects). */
    public int connections() {
        return connections;
    }

    /**
     * The next event, waiting as long as it takes; null once the watch has ended (after its final
     * {@code error} event, after {@link #close()}, or at a broken connection without reconnecting).
     *
     * @throws RestCallException the daemon refused the watch (400, 401, 403, 404, 429 naming a limit)
     */
    public WatchEvent next() {
        while (!closed && !ended) {
            try {
                if (reader == null) {
                    connect();
                }
                WatchEvent e = readEvent();
                if (e == null) {
                    lost(null);
                    continue;
                }
                lastId = e.seq();
                if (e.isError()) {
                    if ("shutdown".equals(e.reason()) && options.reconnect()) {
                        disconnect(); // a restarted daemon answers the resumed watch
                    } else {
                        ended = true;
                        disconnect();
                    }
                }
                return e;
            } catch (IOException e) {
                lost(e);
            } catch (DaemonUnreachableException e) {
                if (!options.reconnect() || connections == 0) {
                    throw e; // never reached: no watch to resume
                }
                pause();
            } catch (RestCallException e) {
                if (e.httpStatus() < 500 || !options.reconnect()) {
                    ended = true;
                    throw e;
                }
                pause();
            }
        }
        disconnect();
        return null;
    }

    /** Opens the connection; when it returns, the daemon is watching. */
    void connect() {
        String query = query();
        Long resume = lastId >= 0 ? Long.valueOf(lastId) : null;
        InputStream in = connector.open(path, query, resume);
        connections++;
        body = in;
        reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        lastActivity = System.nanoTime();
        pause = FIRST_PAUSE_MILLIS;
        if (watchdog == null && !options.idleTimeout().isZero()) {
            watchdog = new Thread(this::watchIdle, "sandboxd-watch-idle " + path);
            watchdog.setDaemon(true);
            watchdog.start();
        }
        if (closed) {
            disconnect();
        }
    }

    String query() {
        StringBuilder q = new StringBuilder("path=").append(RestPaths.encode(path));
        if (options.recursive()) {
            q.append("&recursive=true");
        }
        for (String g : options.excludes()) {
            q.append("&exclude=").append(RestPaths.encode(g));
        }
        if (lastId < 0 && options.cursor() != null) {
            q.append("&cursor=").append(options.cursor());
        }
        return q.toString();
    }

    /** Reads up to the end of the next event; null at the end of the stream. */
    private WatchEvent readEvent() throws IOException {
        String data = null;
        for (String line; (line = reader.readLine()) != null; ) {
            lastActivity = System.nanoTime();
            if (line.isEmpty()) {
                if (data != null) {
                    return WatchEvent.parse(data);
                }
            } else if (line.startsWith("data:")) {
                data = line.substring(line.startsWith("data: ") ? 6 : 5);
            }
            // "id:" repeats the event's seq; ":" comments are heartbeats; "retry:" is for browsers
        }
        return null;
    }

    /** The connection ended without a final event: reconnect after a pause, or end. */
    private void lost(IOException cause) {
        disconnect();
        if (closed) {
            return;
        }
        if (!options.reconnect()) {
            ended = true;
            if (cause != null) {
                throw new SandboxdException("watch " + path + ": connection lost: " + cause.getMessage(), cause);
            }
            return;
        }
        pause();
    }

    private void pause() {
        try {
            Thread.sleep(pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
        pause = Math.min(MAX_PAUSE_MILLIS, pause * 2);
    }

    private void disconnect() {
        InputStream in = body;
        body = null;
        reader = null;
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                // gone either way
            }
        }
    }

    /** Closes a connection that stayed silent past the idle timeout: the reader then reconnects. */
    private void watchIdle() {
        long limit = options.idleTimeout().toNanos();
        while (!closed && !ended) {
            try {
                Thread.sleep(Math.max(100, Duration.ofNanos(limit / 4).toMillis()));
            } catch (InterruptedException e) {
                return;
            }
            InputStream in = body;
            if (in != null && System.nanoTime() - lastActivity > limit) {
                try {
                    in.close();
                } catch (IOException e) {
                    // the reader sees the end and reconnects
                }
            }
        }
    }

    /** Ends the watch; a {@link #next()} blocked in another thread returns null. */
    @Override
    public void close() {
        closed = true;
        InputStream in = body;
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                // closed either way
            }
        }
        if (watchdog != null) {
            watchdog.interrupt();
        }
    }
}
