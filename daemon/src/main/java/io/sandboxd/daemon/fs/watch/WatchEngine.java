package io.sandboxd.daemon.fs.watch;

import com.sun.jna.Memory;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.DirectoryHandles.Stat;
import io.sandboxd.daemon.fs.EntryType;
import io.sandboxd.daemon.fs.SandboxRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The watch thread: reads the daemon's one inotify instance, turns kernel events into watch
 * events (runtime-contract §4.2) and runs every change to the watched directories, so none of that
 * state needs a lock. Other threads hand it work with {@link #call}.
 *
 * <p>Why a thread of its own rather than the process I/O loop: handling an event can mean a
 * directory walk (a new directory is scanned at once, an overflow re-walks every watch) that
 * takes as long as the tree is large; on the I/O loop that would stall every process's output.
 * One thread for all watches costs one stack, and only once something is watched.
 */
final class WatchEngine {
    private static final System.Logger LOG = System.getLogger(WatchEngine.class.getName());
    /** Room for ~2,000 events of short names per read; the kernel never splits an event. */
    private static final int READ_BYTES = 64 * 1024;
    /** How long writes to one file are gathered into one {@code modified}. */
    static final long COALESCE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long the first half of a rename waits for its second once nothing more is queued. */
    private static final long MOVE_PAIR_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Files whose writes are tracked at once (see {@link ModifyCoalescer}). */
    private static final int MAX_TRACKED_WRITES = 16384;
    /** Names a scan remembers to drop the kernel's echo of (see {@link ScanEchoes}). */
    private static final int MAX_ECHOES = 65536;

    private final WatchSettings settings;
    private final Inotify inotify;
    private final Memory buffer = new Memory(READ_BYTES);
    private final NodeDescriptors descriptors;
    private final WatchTree tree;
    private final Emitter emitter;
    private final ModifyCoalescer<FileKey> writes = new ModifyCoalescer<>(COALESCE_NANOS, MAX_TRACKED_WRITES);
    private final ScanEchoes echoes = new ScanEchoes(MAX_ECHOES);
    private final UnsizedEntries unsized = new UnsizedEntries();
    private final Map<WatchKey, TreeWatch> watches = new LinkedHashMap<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final WatchTree.ScanSink scanSink = new ScanReporter();
    private final Thread thread;
    private volatile boolean running = true;
    private long readBytes;
    private PendingMove pendingFrom;
    private int streams;

    private WatchEngine(SandboxRoot root, WatchSettings settings, Inotify inotify) {
        this.settings = settings;
        this.inotify = inotify;
        this.descriptors = new NodeDescriptors(root, 64);
        this.tree = new WatchTree(inotify, descriptors, settings.maxDirectories());
        this.emitter = new Emitter(settings.memoryBytes(), Emitter.startSequence());
        this.thread = new Thread(null, this::run, "sandboxd-watch", 512 * 1024);
        thread.setDaemon(true);
    }

    static WatchEngine start(SandboxRoot root, WatchSettings settings) throws WatchLimitException, IOException {
        WatchEngine e = new WatchEngine(root, settings, Inotify.open());
        e.thread.start();
        return e;
    }

    /** Work for the watch thread that answers or fails. */
    interface Task<T> {
        T run() throws SandboxException;
    }

    /** Runs {@code task} on the watch thread and waits for it. */
    <T> T call(Task<T> task) throws SandboxException {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            submit(() -> {
                try {
                    if (!running) {
                        throw stopped();
                    }
                    result.complete(task.run());
                } catch (SandboxException | RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (IllegalStateException e) {
            throw stopped();
        }
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.UNAVAILABLE, "interrupted while setting up the watch");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SandboxException s) {
                throw s;
            }
            throw (RuntimeException) e.getCause();
        }
    }

    private static SandboxException stopped() {
        return new SandboxException(ErrorKind.UNAVAILABLE, "the daemon is shutting down");
    }

    boolean isRunning() {
        return running;
    }

    /** Runs {@code task} on the watch thread later; refused once the engine stopped. */
    void submit(Runnable task) {
        if (!running) {
            throw new IllegalStateException("the watch engine has stopped");
        }
        tasks.add(task);
        inotify.wake();
    }

    // ------------------------------------------------------------------ watches and streams

    /** A stream for {@code key}: the existing watch (which keeps its journal), else a new one. Watch thread. */
    TreeWatch attach(WatchKey key, ExcludeGlobs excludes) throws SandboxException {
        if (streams >= settings.maxWatchers()) {
            throw tooMany();
        }
        TreeWatch w = watches.get(key);
        if (w == null) {
            if (watches.size() >= settings.maxWatchers() && !evictIdle()) {
                throw tooMany();
            }
            w = open(key, excludes);
            watches.put(key, w);
        }
        w.streams++;
        streams++;
        return w;
    }

    private TreeWatch open(WatchKey key, ExcludeGlobs excludes) throws SandboxException {
        TreeWatch w = new TreeWatch(key, excludes, new EventJournal(settings.retainedEvents(), emitter.current()));
        try {
            if (!tree.openTop(w, key.dirPath())) {
                throw new SandboxException(ErrorKind.NOT_FOUND, "path does not exist within the sandbox");
            }
        } catch (WatchLimitException e) {
            throw new SandboxException(ErrorKind.RESOURCE_EXHAUSTED, e.getMessage());
        }
        if (w.recursive()) {
            tree.walkFrom(w.top, List.of(w), null, null);
        }
        tree.drainLimited();
        if (w.limitHit != null) {
            tree.release(w);
            throw new SandboxException(ErrorKind.RESOURCE_EXHAUSTED, w.limitHit.getMessage());
        }
        w.opening = false;
        return w;
    }

    private SandboxException tooMany() {
        return new SandboxException(
                ErrorKind.RESOURCE_EXHAUSTED,
                "too many watches: --watch-max-watchers (" + settings.maxWatchers() + ") are open");
    }

    /** Ends the watch without streams that has been idle longest; false when every watch has a stream. */
    private boolean evictIdle() {
        TreeWatch oldest = null;
        for (TreeWatch w : watches.values()) {
            if (w.streams == 0 && (oldest == null || w.idleSince - oldest.idleSince < 0)) {
                oldest = w;
            }
        }
        if (oldest == null) {
            return false;
        }
        endWatch(oldest, null, null, null);
        return true;
    }

    /** A stream of {@code w} ended. Watch thread. */
    void detach(TreeWatch w) {
        w.streams--;
        streams--;
        if (w.streams == 0) {
            w.idleSince = System.nanoTime();
            if (settings.linger().isZero()) {
                endWatch(w, null, null, null);
            }
        }
    }

    /** Ends every watch (their streams get an {@code error} and end) and stops the thread. */
    void shutdown() {
        if (!running) {
            return;
        }
        try {
            submit(() -> {
                for (TreeWatch w : new ArrayList<>(watches.values())) {
                    endWatch(w, "shutdown", "the daemon is shutting down", null);
                }
                emitter.publish(watches.values());
                running = false;
            });
        } catch (IllegalStateException alreadyStopped) {
            return;
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The watch stops reporting, lets go of its directories and leaves the registry; streams drain its journal. */
    private void endWatch(TreeWatch w, String reason, String message, String limit) {
        if (w.finished) {
            return;
        }
        w.finished = true;
        w.ended = true;
        if (reason != null) {
            emitter.error(w, reason, message, limit);
        }
        tree.release(w);
        watches.remove(w.key, w);
        emitter.touch(w);
    }

    /** Watches that hit a limit: {@code resync} and an error naming the limit, then the end. */
    private void endLimited() {
        for (TreeWatch w : tree.drainLimited()) {
            if (!w.opening) {
                emitter.resync(w, "limit");
                endWatch(w, "limit", w.limitHit.getMessage(), w.limitHit.limit());
            }
        }
    }

    // ------------------------------------------------------------------ the loop

    private void run() {
        try {
            while (running) {
                boolean ready = inotify.await(timeoutMillis());
                runTasks();
                if (ready && running) {
                    readAndHandle();
                }
                timers();
                unsized.retry(this::reportSize, System.nanoTime());
                emitter.publish(watches.values());
                descriptors.clear();
            }
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "the watch thread failed; every watch ends", t);
            for (TreeWatch w : new ArrayList<>(watches.values())) {
                endWatch(w, "internal", "the daemon's watch failed; watch again", null);
            }
            emitter.publish(watches.values());
        } finally {
            running = false;
            for (Runnable r; (r = tasks.poll()) != null; ) {
                r.run(); // callers waiting on call() get their answer (a failure: nothing is watched)
            }
            descriptors.close();
            inotify.close();
        }
    }

    private int timeoutMillis() {
        long now = System.nanoTime();
        long next = writes.nextDeadline(now + TimeUnit.SECONDS.toNanos(60));
        if (pendingFrom != null) {
            next = Math.min(next, pendingFrom.deadlineNanos());
        }
        for (TreeWatch w : watches.values()) {
            if (w.streams == 0) {
                next = Math.min(next, w.idleSince + settings.linger().toNanos());
            }
        }
        long wait = next - now;
        return wait <= 0 ? 0 : (int) Math.min(60_000, TimeUnit.NANOSECONDS.toMillis(wait) + 1);
    }

    private void runTasks() {
        for (Runnable r; (r = tasks.poll()) != null; ) {
            r.run();
        }
    }

    private void readAndHandle() throws IOException {
        int n = inotify.read(buffer);
        if (n <= 0) {
            return;
        }
        readBytes += n;
        int off = 0;
        while (off + 16 <= n) {
            int wd = buffer.getInt(off);
            int mask = buffer.getInt(off + 4);
            int cookie = buffer.getInt(off + 8);
            int len = buffer.getInt(off + 12);
            String name = len == 0 ? "" : nameAt(off + 16, len);
            off += 16 + len;
            handle(wd, mask, cookie, name);
            endLimited();
        }
        echoes.expire(readBytes);
    }

    private String nameAt(int off, int len) {
        byte[] b = buffer.getByteArray(off, len);
        int end = 0;
        while (end < len && b[end] != 0) {
            end++;
        }
        return new String(b, 0, end, StandardCharsets.ISO_8859_1);
    }

    private void timers() {
        long now = System.nanoTime();
        if (pendingFrom != null && now - pendingFrom.deadlineNanos() >= 0 && inotify.queuedBytes() == 0) {
            PendingMove from = pendingFrom;
            pendingFrom = null;
            departed(from);
        }
        for (FileKey k : writes.due(now)) {
            reportModified(k);
        }
        for (TreeWatch w : new ArrayList<>(watches.values())) {
            if (w.streams == 0 && now - w.idleSince - settings.linger().toNanos() >= 0) {
                endWatch(w, null, null, null);
            }
        }
        endLimited();
    }

    // ------------------------------------------------------------------ kernel events

    private void handle(int wd, int mask, int cookie, String name) {
        if ((mask & Inotify.IN_Q_OVERFLOW) != 0) {
            overflow();
            return;
        }
        DirNode node = tree.node(wd);
        boolean pairs = pendingFrom != null
                && (mask & Inotify.IN_MOVED_TO) != 0
                && cookie == pendingFrom.cookie()
                && node != null
                && tree.isLive(pendingFrom.dir());
        if (pendingFrom != null && !pairs) {
            PendingMove from = pendingFrom;
            pendingFrom = null;
            departed(from);
        }
        if (node == null) {
            return;
        }
        if (name.isEmpty()) {
            aboutItself(node, mask);
            return;
        }
        boolean dir = (mask & Inotify.IN_ISDIR) != 0;
        if ((mask & Inotify.IN_MOVED_FROM) != 0) {
            pendingFrom = new PendingMove(node, name, cookie, dir, System.nanoTime() + MOVE_PAIR_NANOS);
        } else if ((mask & Inotify.IN_MOVED_TO) != 0) {
            if (pairs) {
                PendingMove from = pendingFrom;
                pendingFrom = null;
                moved(from, node, name, dir);
            } else {
                arrived(node, name, dir);
            }
        } else if (WatchTree.reserved(name)) {
            return; // the daemon's own upload temps: their rename into place is what is reported
        } else if ((mask & Inotify.IN_CREATE) != 0) {
            created(node, name, dir);
        } else if ((mask & Inotify.IN_DELETE) != 0) {
            deleted(node, name, dir);
        } else if ((mask & Inotify.IN_MODIFY) != 0) {
            written(node, name);
        } else if ((mask & Inotify.IN_CLOSE_WRITE) != 0) {
            if (writes.closedAfterWrite(new FileKey(node.wd, name))) {
                reportModified(new FileKey(node.wd, name));
            }
        } else if ((mask & Inotify.IN_ATTRIB) != 0) {
            Stat st = tree.stat(node, name);
            emitter.change(covering(node, name), EventKind.ATTRIBUTES, node.childPath(name), null, type(dir, st), st);
        }
    }

    /** An event about a watched directory itself (no name). */
    private void aboutItself(DirNode node, int mask) {
        if ((mask & Inotify.IN_IGNORED) != 0) {
            if (tree.isLive(node)) {
                endTops(node, true);
                tree.forgetNode(node);
            }
        } else if ((mask & (Inotify.IN_DELETE_SELF | Inotify.IN_UNMOUNT)) != 0) {
            endTops(node, true);
        } else if ((mask & Inotify.IN_MOVE_SELF) != 0) {
            endTops(node, false);
        } else if ((mask & Inotify.IN_ATTRIB) != 0) {
            List<TreeWatch> tops = new ArrayList<>();
            for (TreeWatch w : node.watches) {
                if (w.top == node && w.key.fileName() == null && !w.ended) {
                    tops.add(w);
                }
            }
            Stat st = tree.statSelf(node);
            emitter.change(tops, EventKind.ATTRIBUTES, node.path, null, EntryType.DIRECTORY, st);
        }
    }

    private void created(DirNode node, String name, boolean dir) {
        if (echoes.isEcho(new FileKey(node.wd, name))) {
            return; // a scan of the new directory reported it already
        }
        List<TreeWatch> to = covering(node, name);
        if (to.isEmpty()) {
            return;
        }
        Stat st = tree.stat(node, name);
        emitter.change(to, EventKind.CREATED, node.childPath(name), null, type(dir, st), st);
        sizeLater(node, name, dir, st);
        if (dir) {
            watchNewDirectory(node, name, to);
        }
    }

    /** A directory that appeared in {@code parent}: watched at once and scanned for what is already in it. */
    private void watchNewDirectory(DirNode parent, String name, List<TreeWatch> covering) {
        List<TreeWatch> recursive = new ArrayList<>(covering.size());
        for (TreeWatch w : covering) {
            if (w.recursive()) {
                recursive.add(w);
            }
        }
        if (!recursive.isEmpty()) {
            tree.addTree(parent, name, recursive, scanSink, null);
        }
    }

    private void deleted(DirNode node, String name, boolean dir) {
        FileKey k = new FileKey(node.wd, name);
        writes.forget(k);
        echoes.forget(k);
        unsized.forget(k);
        emitter.change(
                covering(node, name),
                EventKind.DELETED,
                node.childPath(name),
                null,
                dir ? EntryType.DIRECTORY : EntryType.FILE,
                null);
        if (dir) {
            DirNode child = node.children.get(name);
            if (child != null) {
                gone(child, true);
            }
        }
    }

    private void written(DirNode node, String name) {
        if (covering(node, name).isEmpty()) {
            return;
        }
        FileKey early = writes.written(new FileKey(node.wd, name), System.nanoTime());
        if (early != null) {
            reportModified(early);
        }
    }

    private void reportModified(FileKey k) {
        DirNode node = tree.node(k.wd());
        if (node == null) {
            return;
        }
        List<TreeWatch> to = covering(node, k.name());
        if (to.isEmpty()) {
            return;
        }
        // reported even when the file is already gone again (then without size and time): a
        // close after writing always yields one, and the deletion follows it
        Stat st = tree.stat(node, k.name());
        emitter.change(to, EventKind.MODIFIED, node.childPath(k.name()), null, type(false, st), st);
        sizeLater(node, k.name(), false, st);
    }

    /** Both halves of a rename inside the watched directories. */
    private void moved(PendingMove from, DirNode toDir, String toName, boolean dir) {
        boolean fromHidden = WatchTree.reserved(from.name());
        boolean toHidden = WatchTree.reserved(toName);
        if (fromHidden && toHidden) {
            return;
        }
        if (fromHidden) {
            arrived(toDir, toName, dir); // an upload's temp file renamed into place
            return;
        }
        if (toHidden) {
            departed(from);
            return;
        }
        DirNode fromDir = from.dir();
        FileKey fromKey = new FileKey(fromDir.wd, from.name());
        echoes.forget(fromKey);
        unsized.forget(fromKey);
        String oldPath = fromDir.childPath(from.name());
        String newPath = toDir.childPath(toName);
        List<TreeWatch> fromWatches = covering(fromDir, from.name());
        List<TreeWatch> toWatches = covering(toDir, toName);
        Stat st = tree.stat(toDir, toName);
        EntryType type = type(dir, st);
        if (writes.moved(fromKey, new FileKey(toDir.wd, toName))) {
            // writes not yet reported belong before the move, under the name they were made to
            emitter.change(fromWatches, EventKind.MODIFIED, oldPath, null, type, st);
        }
        List<TreeWatch> both = new ArrayList<>();
        List<TreeWatch> onlyFrom = new ArrayList<>();
        for (TreeWatch w : fromWatches) {
            (toWatches.contains(w) ? both : onlyFrom).add(w);
        }
        List<TreeWatch> onlyTo = new ArrayList<>();
        for (TreeWatch w : toWatches) {
            if (!both.contains(w)) {
                onlyTo.add(w);
            }
        }
        emitter.change(both, EventKind.MOVED, newPath, oldPath, type, st);
        emitter.change(onlyFrom, EventKind.DELETED, oldPath, null, dir ? EntryType.DIRECTORY : EntryType.FILE, null);
        emitter.change(onlyTo, EventKind.CREATED, newPath, null, type, st);
        sizeLater(toDir, toName, dir, st);
        if (!dir) {
            return;
        }
        DirNode child = fromDir.children.get(from.name());
        if (child != null) {
            for (TreeWatch w : tree.topsIn(child)) {
                endTop(w, false);
            }
            tree.releaseSubtree(child, w -> !both.contains(w));
            if (tree.isLive(child)) {
                child.moveTo(toDir, toName, newPath);
            }
        }
        watchNewDirectory(toDir, toName, onlyTo);
    }

    /** A rename into the watched directories from elsewhere: a creation. */
    private void arrived(DirNode dir, String name, boolean directory) {
        if (WatchTree.reserved(name)) {
            return;
        }
        List<TreeWatch> to = covering(dir, name);
        if (to.isEmpty()) {
            return;
        }
        Stat st = tree.stat(dir, name);
        emitter.change(to, EventKind.CREATED, dir.childPath(name), null, type(directory, st), st);
        sizeLater(dir, name, directory, st);
        if (directory) {
            watchNewDirectory(dir, name, to);
        }
    }

    /** A rename out of the watched directories (no second half came): a deletion. */
    private void departed(PendingMove from) {
        if (WatchTree.reserved(from.name()) || !tree.isLive(from.dir())) {
            return;
        }
        DirNode dir = from.dir();
        FileKey k = new FileKey(dir.wd, from.name());
        writes.forget(k);
        echoes.forget(k);
        unsized.forget(k);
        emitter.change(
                covering(dir, from.name()),
                EventKind.DELETED,
                dir.childPath(from.name()),
                null,
                from.directory() ? EntryType.DIRECTORY : EntryType.FILE,
                null);
        if (from.directory()) {
            DirNode child = dir.children.get(from.name());
            if (child != null) {
                gone(child, false);
            }
        }
    }

    /** A watched directory left the watched tree (deleted or moved out): its watches let go of it all. */
    private void gone(DirNode sub, boolean deleted) {
        for (TreeWatch w : tree.topsIn(sub)) {
            endTop(w, deleted);
        }
        tree.releaseSubtree(sub, w -> true);
    }

    /** The watches whose top is {@code node} end: it was deleted or moved. */
    private void endTops(DirNode node, boolean deleted) {
        for (TreeWatch w : new ArrayList<>(node.watches)) {
            if (w.top == node) {
                endTop(w, deleted);
            }
        }
    }

    private void endTop(TreeWatch w, boolean deleted) {
        if (w.finished) {
            return;
        }
        if (deleted && w.key.fileName() == null) {
            emitter.change(List.of(w), EventKind.DELETED, w.key.dirPath(), null, EntryType.DIRECTORY, null);
        }
        String what = w.key.fileName() == null ? "the watched directory" : "the watched file's directory";
        endWatch(
                w,
                deleted ? "deleted" : "moved",
                what + " /" + display(w.key.dirPath()) + " was " + (deleted ? "deleted" : "moved"),
                null);
    }

    /**
     * The kernel dropped events (its queue overflowed): what the watched trees look like now is
     * unknown. Every watch walks its tree again (watching directories created meanwhile, letting
     * go of vanished ones) and then tells its clients to re-list with {@code resync}: every
     * change after that event is reported again.
     */
    private void overflow() {
        pendingFrom = null;
        writes.clear();
        echoes.clear();
        unsized.clear();
        for (TreeWatch w : new ArrayList<>(watches.values())) {
            if (!w.ended) {
                rewalk(w);
            }
        }
        endLimited();
        for (TreeWatch w : watches.values()) {
            if (!w.ended) {
                emitter.resync(w, "overflow");
            }
        }
    }

    private void rewalk(TreeWatch w) {
        List<DirNode> before = tree.nodesOf(w);
        for (DirNode n : before) {
            tree.dropDescriptors(n); // they may have moved unseen: reopened by path, and checked
        }
        if (tree.statSelf(w.top) == null) {
            endTop(w, true);
            return;
        }
        if (!w.recursive()) {
            return;
        }
        Set<DirNode> seen = new HashSet<>();
        seen.add(w.top);
        tree.walkFrom(w.top, List.of(w), null, seen);
        for (DirNode n : before) {
            if (!seen.contains(n)) {
                tree.drop(n, w);
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private List<TreeWatch> covering(DirNode dir, String name) {
        List<TreeWatch> out = new ArrayList<>(dir.watches.size());
        for (TreeWatch w : dir.watches) {
            if (w.covers(dir, name)) {
                out.add(w);
            }
        }
        return out;
    }

    /** A file just reported without a size (see {@link UnsizedEntries}): its size follows when known. */
    private void sizeLater(DirNode dir, String name, boolean directory, Stat st) {
        if (st == null && !directory && !dir.watches.isEmpty()) {
            unsized.add(new FileKey(dir.wd, name), System.nanoTime());
        }
    }

    /** @return true when {@code k} no longer needs a size: reported now, or its directory is gone */
    private boolean reportSize(FileKey k) {
        DirNode node = tree.node(k.wd());
        if (node == null) {
            return true;
        }
        Stat st = tree.stat(node, k.name());
        if (st == null) {
            return false;
        }
        emitter.change(covering(node, k.name()), EventKind.ATTRIBUTES, node.childPath(k.name()), null, st.type(), st);
        return true;
    }

    private static EntryType type(boolean dir, Stat st) {
        if (dir) {
            return EntryType.DIRECTORY;
        }
        return st == null ? EntryType.FILE : st.type();
    }

    static String display(String raw) {
        return io.sandboxd.daemon.fs.Utf8.lossy(raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** What a scan of a new directory finds is reported as created, and remembered against the kernel's echo. */
    private final class ScanReporter implements WatchTree.ScanSink {
        @Override
        public void found(DirNode dir, String name, boolean directory, List<TreeWatch> covering) {
            Stat st = tree.stat(dir, name);
            emitter.change(covering, EventKind.CREATED, dir.childPath(name), null, type(directory, st), st);
            echoes.remember(new FileKey(dir.wd, name));
        }

        @Override
        public void listed(DirNode dir) {
            echoes.listed(readBytes + inotify.queuedBytes());
        }
    }
}
