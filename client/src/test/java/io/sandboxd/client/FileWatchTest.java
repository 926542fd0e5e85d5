package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.sandboxd.testkit.RunningDaemon;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The filesystem watch end to end (runtime-contract §4.2): the packaged daemon as a separate
 * process, the client library's {@link FileWatch}, and the changes made by a real process
 * (Debian's python3) in the sandbox root. Every test checks what a syncing client relies on: the
 * events, applied to what it had (and to a fresh listing after a {@code resync}), give exactly
 * the tree on disk.
 */
class FileWatchTest {
    static RunningDaemon daemon;
    static SandboxdClient client;
    static final int MAX_DIRECTORIES = 400;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start(
                "file-watch", s -> s.withArgs("--watch-max-directories", String.valueOf(MAX_DIRECTORIES)));
        client = TestDaemons.client(daemon);
    }

    @AfterAll
    static void stop() {
        client.close();
        daemon.close();
    }

    /** The 10,000-file workload: creates, writes, appends, renames, deletions, directory moves in, out and within. */
    static final String BURST = """
            import os, shutil, sys
            base, outside = sys.argv[1], sys.argv[2]
            files = []
            for a in range(20):
                for b in range(10):
                    d = os.path.join(base, "a%d" % a, "b%d" % b)
                    os.makedirs(d)
                    for c in range(50):
                        p = os.path.join(d, "f%d" % c)
                        with open(p, "w") as f:
                            f.write("x" * (c + 1))
                        files.append(p)
            for i, p in enumerate(files):
                if i % 3 == 0:
                    with open(p, "a") as f:
                        f.write("more")
            for i, p in enumerate(files):
                if i % 5 == 1:
                    os.rename(p, p + ".moved")
            for i, p in enumerate(files):
                if i % 7 == 2 and os.path.exists(p):
                    os.remove(p)
            for a in range(20):
                os.rename(os.path.join(base, "a%d" % a, "b0"), os.path.join(base, "a%d" % a, "b0x"))
            os.rename(os.path.join(base, "a19"), os.path.join(base, "a0", "a19"))
            os.rename(os.path.join(base, "a18"), os.path.join(outside, "a18"))
            os.makedirs(os.path.join(outside, "in", "x", "y"))
            for c in range(30):
                with open(os.path.join(outside, "in", "x", "y", "g%d" % c), "w") as f:
                    f.write("g" * c)
            os.rename(os.path.join(outside, "in"), os.path.join(base, "in"))
            shutil.rmtree(os.path.join(base, "a17"))
            open(os.path.join(base, "done"), "w").close()
            """;

    static void python(String script, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/python3", "-c", script));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("python: %s", out).isZero();
    }

    /** What a syncing client keeps: path → "file:SIZE" or "directory". */
    static final class Mirror {
        final String top;
        final TreeMap<String, String> entries = new TreeMap<>();
        final List<Long> seqs = new ArrayList<>();
        int resyncs;

        Mirror(String top) {
            this.top = top;
        }

        void apply(WatchEvent e) {
            seqs.add(e.seq());
            switch (e.type()) {
                case "created", "modified", "attributes" -> {
                    if (!e.path().equals(top)) {
                        entries.put(e.path(), describe(e.entry(), e.size()));
                    }
                }
                case "deleted" -> removeTree(e.path());
                case "moved" -> {
                    removeTree(e.path());
                    TreeMap<String, String> moving =
                            new TreeMap<>(entries.subMap(e.oldPath(), true, e.oldPath() + "/\uffff", true));
                    for (Map.Entry<String, String> m : moving.entrySet()) {
                        if (m.getKey().equals(e.oldPath()) || m.getKey().startsWith(e.oldPath() + "/")) {
                            entries.remove(m.getKey());
                            entries.put(
                                    e.path() + m.getKey().substring(e.oldPath().length()), m.getValue());
                        }
                    }
                    entries.put(e.path(), describe(e.entry(), e.size()));
                }
                case "resync" -> {
                    resyncs++;
                    relist();
                }
                default -> throw new AssertionError("unexpected event " + e.json());
            }
        }

        private void removeTree(String path) {
            entries.remove(path);
            entries.subMap(path + "/", path + "/\uffff").clear();
        }

        /** What a client does on resync: list the tree again (here through the daemon's REST listing). */
        void relist() {
            entries.clear();
            List<String> dirs = new ArrayList<>(List.of(top));
            while (!dirs.isEmpty()) {
                String d = dirs.remove(dirs.size() - 1);
                DirectoryListing l;
                try {
                    l = client.list(d);
                } catch (RestCallException gone) {
                    continue;
                }
                for (FileEntry f : l.entries()) {
                    String p = d + "/" + f.name();
                    entries.put(p, describe(f.type(), f.size()));
                    if (f.isDirectory()) {
                        dirs.add(p);
                    }
                }
            }
        }

        static String describe(String entry, long size) {
            return "directory".equals(entry) ? "directory" : entry + ":" + size;
        }
    }

    /** The tree on disk, in the mirror's terms. */
    static TreeMap<String, String> onDisk(String top) throws IOException {
        Path base = daemon.rootDir().resolve(top.substring(1));
        TreeMap<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(base)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (p.equals(base)) {
                    continue;
                }
                String rel = top + "/" + base.relativize(p);
                out.put(rel, Files.isDirectory(p) ? "directory" : "file:" + Files.size(p));
            }
        }
        return out;
    }

    /**
     * Events into {@code sink} until {@code last} arrives (null: from the start), then until 1 s
     * passes without any; closes {@code w}. Events may follow the last change on disk: a file's
     * coalesced writes up to 100 ms later, and the size of a file whose directory moved on before
     * its event was handled (up to 2 s later, as an {@code attributes}).
     */
    static void follow(FileWatch w, java.util.function.Consumer<WatchEvent> sink, String last) throws Exception {
        AtomicBoolean seenLast = new AtomicBoolean(last == null);
        AtomicLong lastEventAt = new AtomicLong(System.nanoTime());
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                for (WatchEvent e; (e = w.next()) != null; ) {
                    sink.accept(e);
                    lastEventAt.set(System.nanoTime());
                    if (e.path().equals(last)) {
                        seenLast.set(true);
                    }
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        long quiet = Duration.ofSeconds(1).toNanos();
        while ((!seenLast.get() || System.nanoTime() - lastEventAt.get() < quiet)
                && failed.get() == null
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        w.close();
        t.join(5000);
        assertThat(failed.get()).isNull();
        assertThat(seenLast.get()).as("the event for " + last).isTrue();
    }

    /** Runs {@code body} on a thread, keeping what it throws. */
    static Thread background(AtomicReference<Throwable> failure, ThrowingRunnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
        t.start();
        return t;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void tenThousandFilesChangedByAProcessAreReproducedExactlyAndACursorResumesWithoutGapOrDuplicate()
            throws Exception {
        Files.createDirectories(daemon.rootDir().resolve("burst"));
        Path outside = Files.createDirectories(daemon.rootDir().resolve("outside"));
        WatchOptions all = WatchOptions.defaults().recursive(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();

        // 1. a client that stays connected and mirrors the tree
        Mirror steady = new Mirror("/burst");
        FileWatch steadyWatch = client.watch("/burst", all);

        // 2. the same watch (so the same journal and ids), disconnecting and resuming from its
        //    cursor every 700 events, mid-burst
        List<Long> hops = Collections.synchronizedList(new ArrayList<>());
        FileWatch firstHop = client.watch("/burst", all);
        Thread hopper = background(failure, () -> hop(firstHop, all, hops, null));

        // 3. a watch with a journal of its own (another exclude) and no other client, resuming the
        //    same way: its journal outlives each disconnection (--watch-linger)
        WatchOptions own = all.exclude("*.none");
        Mirror alone = new Mirror("/burst");
        FileWatch firstAlone = client.watch("/burst", own);
        Thread loner = background(failure, () -> hop(firstAlone, own, new ArrayList<>(), alone));

        python(BURST, daemon.rootDir().resolve("burst").toString(), outside.toString());
        follow(steadyWatch, steady::apply, "/burst/done");
        hopper.join(60_000);
        loner.join(60_000);
        assertThat(failure.get()).isNull();

        TreeMap<String, String> disk = onDisk("/burst");
        assertThat(disk).hasSizeGreaterThan(5000);
        System.out.printf(
                "watch burst: %d events, %d resyncs (steady), %d (alone); %d entries on disk%n",
                steady.seqs.size(), steady.resyncs, alone.resyncs, disk.size());
        assertThat(steady.entries).isEqualTo(disk);
        assertThat(alone.entries).isEqualTo(disk);
        List<Long> upToDone = steady.seqs.subList(0, steady.seqs.indexOf(hops.get(hops.size() - 1)) + 1);
        assertThat(hops)
                .as("the resuming client got exactly the steady client's events")
                .isEqualTo(upToDone);
        assertThat(steady.seqs).isSorted().doesNotHaveDuplicates();
    }

    /**
     * Reads 700 events at a time, then closes and resumes from the last id, until {@code
     * /burst/done}; then on as {@link #follow} does (events for earlier changes may come after it).
     */
    private static void hop(FileWatch first, WatchOptions options, List<Long> seqs, Mirror mirror) throws Exception {
        java.util.function.Consumer<WatchEvent> sink = e -> {
            seqs.add(e.seq());
            if (mirror != null) {
                mirror.apply(e);
            }
        };
        FileWatch w = first;
        long cursor = -1;
        while (true) {
            try (FileWatch current = w) {
                for (int i = 0; i < 700; i++) {
                    WatchEvent e = current.next();
                    sink.accept(e);
                    cursor = e.seq();
                    if (e.path().equals("/burst/done")) {
                        follow(current, sink, null);
                        return;
                    }
                }
            }
            w = client.watch("/burst", options.cursor(cursor));
        }
    }

    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aKernelQueueOverflowWhileTheDaemonIsStalledIsOneResyncAndTheWatchGoesOn() throws Exception {
        // the queue's size is the sysctl's value when the daemon made its inotify instance; read
        // now, it can differ (another program may change it meanwhile): at least the usual default
        long queue = Math.max(
                16384,
                // readAllLines: Files.readString reads an integer sysctl as its first digit alone
                Long.parseLong(Files.readAllLines(Path.of("/proc/sys/fs/inotify/max_queued_events"))
                        .get(0)
                        .strip()));
        assumeThat(queue)
                .as("fs.inotify.max_queued_events small enough to fill")
                .isLessThanOrEqualTo(1_000_000);
        Path flood = Files.createDirectories(daemon.rootDir().resolve("flood"));
        FileWatch w = client.watch("/flood", WatchOptions.defaults());
        daemon.signal("STOP"); // the daemon reads nothing: the kernel's queue fills
        try {
            // each file is two events (created, closed after writing); well past the queue
            python(
                    "import os,sys\nfor i in range(int(sys.argv[2])):\n    open(os.path.join(sys.argv[1], 'f%d' % i), 'w').close()",
                    flood.toString(), String.valueOf(queue / 2 + 2000));
        } finally {
            daemon.signal("CONT");
        }
        try (Stream<Path> files = Files.list(flood)) {
            assertThat(files.count()).isEqualTo(queue / 2 + 2000);
        }
        List<WatchEvent> resyncs = new ArrayList<>();
        WatchEvent e;
        while ((e = w.next()) != null && !e.isResync()) {
            assertThat(e.type()).isEqualTo("created");
        }
        resyncs.add(e);
        assertThat(e.reason()).isEqualTo("overflow");
        Files.writeString(flood.resolve("after"), "x");
        while ((e = w.next()) != null && !e.path().equals("/flood/after")) {
            if (e.isResync()) {
                resyncs.add(e);
            }
        }
        assertThat(e).isNotNull();
        assertThat(resyncs).hasSize(1);
        w.close();
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWatchLimitForcedLowIsAResyncAndAnErrorNamingItAndTheDaemonStaysHealthy() throws Exception {
        Path lim = Files.createDirectories(daemon.rootDir().resolve("lim"));
        FileWatch w = client.watch("/lim", WatchOptions.defaults().recursive(true));
        python(
                "import os,sys\nfor i in range(int(sys.argv[2])):\n    os.makedirs(os.path.join(sys.argv[1], 'd%d' % i))",
                lim.toString(), String.valueOf(MAX_DIRECTORIES + 10));
        List<WatchEvent> events = new ArrayList<>();
        for (WatchEvent e; (e = w.next()) != null; ) {
            events.add(e);
        }
        WatchEvent error = events.get(events.size() - 1);
        assertThat(error.isError()).isTrue();
        assertThat(error.code()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(error.limit()).isEqualTo("--watch-max-directories");
        assertThat(error.message()).contains("--watch-max-directories (" + MAX_DIRECTORIES);
        assertThat(events.get(events.size() - 2).isResync()).isTrue();
        assertThat(events.get(events.size() - 2).reason()).isEqualTo("limit");

        assertThat(client.health().status()).isEqualTo("ok");
        assertThatThrownBy(() -> client.watch("/lim", WatchOptions.defaults().recursive(true)))
                .isInstanceOfSatisfying(RestCallException.class, x -> {
                    assertThat(x.httpStatus()).isEqualTo(429);
                    assertThat(x.errorMessage()).contains("--watch-max-directories");
                });
        try (FileWatch small = client.watch("/lim/d1", WatchOptions.defaults())) {
            Files.writeString(lim.resolve("d1/x"), "x");
            assertThat(small.next().path()).isEqualTo("/lim/d1/x");
        }
    }
}
