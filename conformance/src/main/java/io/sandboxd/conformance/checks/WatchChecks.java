package io.sandboxd.conformance.checks;

import static io.sandboxd.conformance.suite.CheckId.*;
import static io.sandboxd.conformance.suite.Expect.fail;
import static io.sandboxd.conformance.suite.Paths.escape;
import static io.sandboxd.conformance.suite.Paths.q;

import io.sandboxd.client.FileWatch;
import io.sandboxd.client.RestCallException;
import io.sandboxd.client.WatchEvent;
import io.sandboxd.client.WatchOptions;
import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.Expect;
import io.sandboxd.conformance.suite.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Checks of runtime-contract §4.2: the filesystem watch, {@code GET /sandboxd/v1alpha1/watch}. */
public final class WatchChecks {
    static final String ROUTE = "/sandboxd/v1alpha1/watch";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private WatchChecks() {}

    public static void register(Map<CheckId, Check> m) {
        m.put(WATCH_EVT_001, WatchChecks::evt001);
        m.put(WATCH_EVT_002, WatchChecks::evt002);
        m.put(WATCH_EVT_003, WatchChecks::evt003);
        m.put(WATCH_EVT_004, WatchChecks::evt004);
        m.put(WATCH_RES_001, WatchChecks::res001);
        m.put(WATCH_SSE_001, WatchChecks::sse001);
        m.put(WATCH_ERR_001, WatchChecks::err001);
        m.put(WATCH_END_001, WatchChecks::end001);
    }

    /** A watch read on a thread of its own, so a check waits with a timeout and never hangs. */
    static final class Reader implements AutoCloseable {
        final FileWatch watch;
        final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
        final List<WatchEvent> seen = new ArrayList<>();

        Reader(CheckContext ctx, String path, WatchOptions options) {
            try {
                watch = ctx.client().watch(path, options.reconnect(false));
            } catch (RestCallException e) {
                throw fail(
                        "GET " + ROUTE + "?path=" + path + ": expected 200 and an event stream, got " + e.getMessage());
            }
            Thread t = new Thread(() -> {
                try {
                    for (WatchEvent e; (e = watch.next()) != null; ) {
                        events.add(e);
                    }
                    events.add("end");
                } catch (RuntimeException e) {
                    events.add(e);
                }
            });
            t.setDaemon(true);
            t.start();
        }

        /** Events up to and including the first that matches, within 10 s. */
        List<WatchEvent> until(Predicate<WatchEvent> last, String what) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            List<WatchEvent> out = new ArrayList<>();
            while (true) {
                Object o = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (o instanceof WatchEvent e) {
                    out.add(e);
                    seen.add(e);
                    if (last.test(e)) {
                        return out;
                    }
                    continue;
                }
                throw fail("watch: expected " + what + " within " + WAIT.toSeconds() + " s; got "
                        + (o == null ? "nothing more" : o.equals("end") ? "the end of the stream" : o) + " after "
                        + render(out));
            }
        }

        /** Whether the stream ends (after its last event) within 10 s. */
        boolean ends() throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                Object o = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if ("end".equals(o)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void close() {
            watch.close();
        }
    }

    /** A path as a query value: every byte outside [A-Za-z0-9-_.~/] escaped. */
    static String query(String relPath) {
        return escape(relPath, true);
    }

    static Predicate<WatchEvent> is(String type, String path) {
        return e -> e.type().equals(type) && e.path().equals(path);
    }

    static List<String> render(List<WatchEvent> events) {
        List<String> out = new ArrayList<>();
        for (WatchEvent e : events) {
            out.add(e.type() + " " + (e.oldPath() != null ? e.oldPath() + " -> " : "") + e.path());
        }
        return out;
    }

    /** The events without {@code attributes} (touch and chmod make those; these checks are about the rest). */
    static List<String> changes(List<WatchEvent> events) {
        List<String> out = new ArrayList<>();
        for (WatchEvent e : events) {
            if (!e.type().equals("attributes")) {
                out.add(e.type() + " " + (e.oldPath() != null ? e.oldPath() + " -> " : "") + e.path());
            }
        }
        return out;
    }

    static void evt001(CheckContext ctx) throws Exception {
        String d = "/" + ctx.mkdir();
        try (Reader r = new Reader(ctx, d, WatchOptions.defaults())) {
            ctx.sh("cd " + q(ctx.dir()) + " && printf hello > f.txt && rm f.txt");
            List<WatchEvent> ev = r.until(is("deleted", d + "/f.txt"), "deleted " + d + "/f.txt");
            Expect.equal(
                    "events of `printf hello > f.txt && rm f.txt`",
                    List.of("created " + d + "/f.txt", "modified " + d + "/f.txt", "deleted " + d + "/f.txt"),
                    changes(ev));
            WatchEvent created = ev.get(0);
            Expect.equal("created: entry", "file", created.entry());
            for (int i = 1; i < ev.size(); i++) {
                Expect.that(
                        ev.get(i).seq() > ev.get(i - 1).seq(),
                        "event ids must increase: " + ev.get(i - 1).seq() + " then "
                                + ev.get(i).seq());
            }
            WatchEvent modified = ev.stream()
                    .filter(e -> e.type().equals("modified"))
                    .findFirst()
                    .orElseThrow();
            Expect.that(
                    modified.size() == -1 || modified.size() == 5,
                    "modified: size must be the file's (5) when given, got " + modified.size());
        }
    }

    static void evt002(CheckContext ctx) throws Exception {
        String d = "/" + ctx.mkdir();
        try (Reader r = new Reader(ctx, d, WatchOptions.defaults().recursive(true))) {
            ctx.sh("cd " + q(ctx.dir()) + " && mkdir -p a/b/c && echo 1 > a/b/c/f && echo 2 > a/g && touch end");
            List<WatchEvent> ev = r.until(is("created", d + "/end"), "created " + d + "/end");
            List<String> created = new ArrayList<>();
            for (WatchEvent e : ev) {
                if (e.type().equals("created")) {
                    created.add(e.path());
                }
            }
            for (String p : List.of("/a", "/a/b", "/a/b/c", "/a/b/c/f", "/a/g")) {
                Expect.that(
                        created.contains(d + p),
                        "a recursive watch must report everything made in new directories, also before they "
                                + "could be watched: no `created " + d + p + "` in " + render(ev));
            }
            ctx.sh("touch " + q(ctx.dir() + "/a/b/c/late"));
            r.until(is("created", d + "/a/b/c/late"), "created " + d + "/a/b/c/late (the new directory is watched)");
        }
    }

    static void evt003(CheckContext ctx) throws Exception {
        String d = "/" + ctx.mkdir();
        ctx.sh("cd " + q(ctx.dir()) + " && mkdir -p w/x/sub out/in && touch w/x/sub/f out/in/g");
        try (Reader r = new Reader(ctx, d + "/w", WatchOptions.defaults().recursive(true))) {
            ctx.sh("cd " + q(ctx.dir()) + " && mv w/x w/y && mv w/y out/y && mv out/in w/in && touch w/end");
            List<WatchEvent> ev = r.until(is("created", d + "/w/end"), "created " + d + "/w/end");
            Expect.equal(
                    "events of mv inside, out of and into the watched directory",
                    List.of(
                            "moved " + d + "/w/x -> " + d + "/w/y",
                            "deleted " + d + "/w/y",
                            "created " + d + "/w/in",
                            "created " + d + "/w/in/g",
                            "created " + d + "/w/end"),
                    changes(ev));
        }
    }

    static void evt004(CheckContext ctx) throws Exception {
        String d = "/" + ctx.mkdir();
        ctx.sh("cd " + q(ctx.dir()) + " && mkdir -p .git node_modules/x src");
        WatchOptions o = WatchOptions.defaults().recursive(true).exclude(".git", "node_modules", "*.log");
        try (Reader r = new Reader(ctx, d, o)) {
            ctx.sh("cd " + q(ctx.dir())
                    + " && touch .git/HEAD node_modules/x/y debug.log src/debug.log src/main.c && touch end");
            List<WatchEvent> ev = r.until(is("created", d + "/end"), "created " + d + "/end");
            Expect.equal(
                    "events with --exclude .git node_modules *.log",
                    List.of("created " + d + "/src/main.c", "created " + d + "/end"),
                    changes(ev));
        }
    }

    static void res001(CheckContext ctx) throws Exception {
        String d = "/" + ctx.mkdir();
        long first;
        try (Reader r = new Reader(ctx, d, WatchOptions.defaults())) {
            ctx.sh("cd " + q(ctx.dir()) + " && touch one two");
            List<WatchEvent> ev = r.until(is("created", d + "/two"), "created " + d + "/two");
            first = ev.get(0).seq();
        }
        ctx.sh("cd " + q(ctx.dir()) + " && touch three");
        try (Reader r = new Reader(ctx, d, WatchOptions.defaults().cursor(first))) {
            List<WatchEvent> ev = r.until(is("created", d + "/three"), "created " + d + "/three");
            Expect.equal(
                    "resumed after the first event (" + first + ")",
                    List.of("created " + d + "/two", "created " + d + "/three"),
                    changes(ev));
            for (WatchEvent e : ev) {
                Expect.that(e.seq() > first, "a resumed watch sent event " + e.seq() + ", not after " + first);
            }
        }
        try (Reader r = new Reader(ctx, d, WatchOptions.defaults().cursor(0))) {
            WatchEvent e = r.until(x -> true, "a first event").get(0);
            Expect.that(e.isResync(), "a cursor that is not retained (0) must get resync first, got " + e.json());
        }
    }

    static void sse001(CheckContext ctx) throws Exception {
        String d = ctx.mkdir();
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create(ctx.options().restBase() + ROUTE + "?path=" + query(d)))
                .timeout(WAIT);
        if (ctx.options().token() != null) {
            b.header("Authorization", "Bearer " + ctx.options().token());
        }
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<Stream<String>> r = http.send(b.build(), HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> body = r.body()) {
            Expect.equal("GET " + ROUTE + ": status", 200, r.statusCode());
            String ct = r.headers().firstValue("Content-Type").orElse("");
            Expect.that(ct.startsWith("text/event-stream"), "Content-Type must be text/event-stream, got " + ct);
            ctx.sh("touch " + q(d + "/f"));
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread t = new Thread(() -> {
                try {
                    body.forEach(lines::add);
                } catch (RuntimeException e) {
                    // closed
                }
            });
            t.setDaemon(true);
            t.start();
            String id = null;
            while (true) {
                String line = lines.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
                if (line == null) {
                    throw fail("no SSE event with id: and data: within " + WAIT.toSeconds() + " s");
                }
                if (line.startsWith("id: ")) {
                    id = line.substring(4);
                } else if (line.startsWith("data: ")) {
                    JsonNode data = JsonMapper.builder().build().readTree(line.substring(6));
                    Expect.that(id != null, "an event's data: must follow its id:");
                    Expect.equal(
                            "data.seq equals the SSE id", id, data.path("seq").asString());
                    Expect.equal("data.type", "created", data.path("type").asString());
                    Expect.equal("data.path", "/" + d + "/f", data.path("path").asString());
                    Expect.equal(
                            "an event ends with an empty line", "", lines.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
                    return;
                }
            }
        }
    }

    static void err001(CheckContext ctx) throws Exception {
        String d = ctx.mkdir();
        ctx.sh("ln -s / " + q(d + "/esc"));
        Expect.error(ctx.rest().get(ROUTE + "?path=" + query(d + "/missing")), 404, "NOT_FOUND");
        Expect.error(ctx.rest().get(ROUTE + "?path=" + query(d + "/esc")), 403, "PERMISSION_DENIED");
        Expect.error(ctx.rest().get(ROUTE + "?path=" + query(d) + "&recursive=maybe"), 400, "INVALID_ARGUMENT");
        Reply noPath = ctx.rest().get(ROUTE);
        Expect.error(noPath, 400, "INVALID_ARGUMENT");
    }

    static void end001(CheckContext ctx) throws Exception {
        String d = "/" + ctx.mkdir();
        ctx.sh("mkdir -p " + q(ctx.dir() + "/gone/sub"));
        try (Reader r = new Reader(ctx, d + "/gone", WatchOptions.defaults().recursive(true))) {
            ctx.sh("rm -r " + q(ctx.dir() + "/gone"));
            List<WatchEvent> ev = r.until(WatchEvent::isError, "an error event");
            Expect.that(
                    changes(ev).contains("deleted " + d + "/gone"),
                    "deleting the watched directory must report its deletion, got " + render(ev));
            WatchEvent error = ev.get(ev.size() - 1);
            Expect.equal("the error's code", "NOT_FOUND", error.code());
            Expect.that(r.ends(), "the stream must end after its error event");
        }
    }
}
