package io.sandboxd.daemon.rest;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.watch.FileWatcher;
import io.sandboxd.daemon.fs.watch.WatchEvent;
import io.sandboxd.daemon.fs.watch.WatchStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.exc.JacksonIOException;

/**
 * {@code GET /sandboxd/v1alpha1/watch} (runtime-contract §4.2): a {@link WatchStream} as Server-Sent
 * Events, so it works through curl, a browser's EventSource and any HTTP/1.1 proxy. Each stream
 * holds one request thread while it lasts (bounded by {@code --watch-max-watchers}) and no event
 * buffer of its own: it writes at most {@link #BATCH} events, flushes, and blocks in the write while
 * the client is slow; the watch's journal holds what it has not read, and a client that falls
 * behind what the journal retains gets {@code resync}. A client that stops reading entirely is cut
 * off by the connection's idle timeout.
 */
final class WatchHandler {
    private static final int BATCH = 256;
    private final FileWatcher watcher;

    WatchHandler(FileWatcher watcher) {
        this.watcher = watcher;
    }

    void register(ExtensionRoutes routes) {
        routes.add(HandlerType.GET, "watch", this::watch);
    }

    void watch(Context ctx) throws SandboxException {
        QueryParams q = QueryParams.of(ctx, Set.of("path", "recursive", "exclude", "cursor"));
        byte[] path = q.path("path");
        boolean recursive = q.bool("recursive", false);
        Long cursor = cursor(ctx.header("Last-Event-ID"), q);
        WatchStream stream = watcher.open(path, recursive, q.all("exclude"), cursor);
        try (stream) {
            ctx.status(200);
            ctx.res().setContentType("text/event-stream;charset=utf-8");
            ctx.header("Cache-Control", "no-cache, no-store");
            ctx.header("X-Accel-Buffering", "no"); // nginx and friends: pass each event on at once
            stream(stream, ctx.res().getOutputStream());
        } catch (IOException clientGone) {
            // the client closed the stream, or stopped reading until the idle timeout cut it off
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stream(WatchStream stream, OutputStream out) throws IOException, InterruptedException {
        long heartbeat = watcher.settings().heartbeat().toNanos();
        write(out, WatchSse.opening(stream.watchedPath()));
        // one generator for the stream's life; it is empty between batches, so the heartbeat can go around it
        JsonGenerator events = Json.to(out);
        try {
            while (true) {
                WatchStream.Batch b = stream.next(heartbeat, BATCH);
                if (b.events().isEmpty() && !b.ended()) {
                    write(out, WatchSse.HEARTBEAT);
                    continue;
                }
                for (WatchEvent e : b.events()) {
                    WatchSse.write(events, e);
                }
                events.flush();
                out.flush();
                if (b.ended()) {
                    events.close(); // hands its buffer back; on a failure it is simply dropped
                    return;
                }
            }
        } catch (JacksonIOException e) {
            throw Json.unwrap(e);
        }
    }

    private static void write(OutputStream out, String text) throws IOException {
        if (!text.isEmpty()) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
    }

    /**
     * Where to resume: {@code Last-Event-ID} (what EventSource sends when it reconnects, with the
     * URL it first used, cursor and all) wins over {@code cursor}; neither means live events only.
     */
    static Long cursor(String lastEventId, QueryParams q) throws SandboxException {
        if (lastEventId != null && !lastEventId.isBlank()) {
            try {
                long n = Long.parseLong(lastEventId.strip());
                if (n >= 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // falls through to the error
            }
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT,
                    "Last-Event-ID must be an event id of this watch (a non-negative integer)");
        }
        if (q.string("cursor").filter(s -> !s.isEmpty()).isEmpty()) {
            return null;
        }
        return q.integer("cursor", 0, 0, Long.MAX_VALUE);
    }
}
