package io.sandboxd.daemon.fs.watch;

import io.sandboxd.daemon.fs.DirectoryHandles;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The watched directories and their kernel watches: which watch descriptor is which directory,
 * where it is, and which watches cover it. A directory covered by several watches has one kernel
 * watch; it is removed when the last watch lets go. Watch thread only.
 *
 * <p>Directories are reached only from the root through {@link NodeDescriptors} or, below a
 * watched one, by {@code openat(O_NOFOLLOW|O_DIRECTORY)} relative to it: a walk never follows a
 * symlink and never leaves the root.
 */
final class WatchTree {
    /** Receives what a scan of a new directory finds. */
    interface ScanSink {
        /** An entry of {@code dir} that {@code covering} report. */
        void found(DirNode dir, String name, boolean directory, List<TreeWatch> covering);

        /** {@code dir} has been listed to its end. */
        void listed(DirNode dir);
    }

    static final String RESERVED_PREFIX = io.sandboxd.daemon.fs.UserPath.TEMP_PREFIX;

    private final Inotify inotify;
    private final NodeDescriptors fds;
    private final int maxDirectories;
    private final Map<Integer, DirNode> byWd = new HashMap<>();
    /** Watches that hit a limit during the current operation; the engine ends them after it. */
    private final List<TreeWatch> limited = new ArrayList<>();

    WatchTree(Inotify inotify, NodeDescriptors fds, int maxDirectories) {
        this.inotify = inotify;
        this.fds = fds;
        this.maxDirectories = maxDirectories;
    }

    static boolean reserved(String name) {
        return name.startsWith(RESERVED_PREFIX);
    }

    DirNode node(int wd) {
        return byWd.get(wd);
    }

    boolean isLive(DirNode node) {
        return node != null && byWd.get(node.wd) == node;
    }

    int size() {
        return byWd.size();
    }

    /**
     * Watches the directory at {@code path} (raw) as the top of {@code w}.
     *
     * @return false when it is not a directory (any more)
     * @throws WatchLimitException when the kernel refuses another watch
     */
    boolean openTop(TreeWatch w, String path) throws WatchLimitException {
        int fd;
        try {
            fd = DirectoryHandles.openDirectory(rootOf(), NodeDescriptors.segments(path));
        } catch (io.sandboxd.daemon.errors.SandboxException e) {
            return false;
        }
        if (fd < 0) {
            return false;
        }
        DirectoryHandles.Stat st = DirectoryHandles.stat(fd);
        int wd = st == null ? -Inotify.ENOENT : inotify.addWatch(fd);
        if (wd < 0) {
            DirectoryHandles.close(fd);
            if (-wd == Inotify.ENOSPC) {
                throw kernelLimit();
            }
            return false;
        }
        DirNode node = byWd.get(wd);
        if (node == null) {
            node = new DirNode(wd, st.dev(), st.ino(), null, lastName(path), path);
            byWd.put(wd, node);
        }
        fds.put(node, fd);
        w.top = node;
        node.watches.add(w);
        w.directories = 1;
        return true;
    }

    /**
     * Watches the directory {@code name} in {@code parent} and, recursively, everything below it
     * that {@code watches} cover, for those watches. With a {@code scan} sink every entry found is
     * reported to it (a directory that appeared after the watch started: whatever was created in
     * it before its own kernel watch existed is found this way). With {@code visited}, every node
     * reached is added to it.
     */
    void addTree(DirNode parent, String name, List<TreeWatch> watches, ScanSink scan, Set<DirNode> visited) {
        Deque<Pending> todo = new ArrayDeque<>();
        todo.push(new Pending(parent, name, watches));
        drain(todo, scan, visited);
    }

    /** As {@link #addTree}, for what is below the already watched {@code node}. */
    void walkFrom(DirNode node, List<TreeWatch> watches, ScanSink scan, Set<DirNode> visited) {
        Deque<Pending> todo = new ArrayDeque<>();
        descend(node, watches, scan, todo);
        drain(todo, scan, visited);
    }

    /** Watches each queued directory and lists it, queueing its subdirectories in turn (no recursion: any depth). */
    private void drain(Deque<Pending> todo, ScanSink scan, Set<DirNode> visited) {
        while (!todo.isEmpty()) {
            Pending p = todo.pop();
            List<TreeWatch> ws = live(p.watches);
            if (ws.isEmpty() || !isLive(p.parent)) {
                continue;
            }
            DirNode node = watchChild(p.parent, p.name, ws);
            if (node == null) {
                continue;
            }
            if (visited != null) {
                visited.add(node);
            }
            descend(node, ws, scan, todo);
        }
    }

    private record Pending(DirNode parent, String name, List<TreeWatch> watches) {}

    private void descend(DirNode node, List<TreeWatch> watches, ScanSink scan, Deque<Pending> todo) {
        List<TreeWatch> ws = new ArrayList<>();
        for (TreeWatch w : watches) {
            if (!w.ended && node.watches.contains(w)) {
                ws.add(w);
            }
        }
        if (ws.isEmpty()) {
            return;
        }
        int fd = fds.of(node);
        if (fd < 0) {
            return;
        }
        // entries are handled as getdents returns them: only subdirectories wait, on the stack
        DirectoryHandles.list(fd, (bytes, directory) -> {
            String entry = new String(bytes, StandardCharsets.ISO_8859_1);
            if (reserved(entry)) {
                return;
            }
            List<TreeWatch> covering = new ArrayList<>(ws.size());
            List<TreeWatch> recursive = new ArrayList<>(ws.size());
            for (TreeWatch w : ws) {
                if (!w.ended && w.covers(node, entry)) {
                    covering.add(w);
                    if (directory && w.recursive()) {
                        recursive.add(w);
                    }
                }
            }
            if (covering.isEmpty()) {
                return;
            }
            if (scan != null) {
                scan.found(node, entry, directory, covering);
            }
            if (!recursive.isEmpty()) {
                todo.push(new Pending(node, entry, recursive));
            }
        });
        if (scan != null) {
            scan.listed(node);
        }
    }

    /** Watches one directory for {@code ws}; null when it is gone, not a directory, or no watch may take it. */
    private DirNode watchChild(DirNode parent, String name, List<TreeWatch> ws) {
        int parentFd = fds.of(parent);
        if (parentFd < 0) {
            return null;
        }
        int fd = DirectoryHandles.openChild(parentFd, NodeDescriptors.raw(name));
        if (fd < 0) {
            return null;
        }
        DirectoryHandles.Stat st = DirectoryHandles.stat(fd);
        int wd = st == null ? -Inotify.ENOENT : inotify.addWatch(fd);
        if (wd < 0) {
            DirectoryHandles.close(fd);
            if (-wd == Inotify.ENOSPC) {
                WatchLimitException e = kernelLimit();
                for (TreeWatch w : ws) {
                    hitLimit(w, e);
                }
            }
            return null;
        }
        DirNode node = byWd.get(wd);
        String path = parent.childPath(name);
        if (node == null) {
            node = new DirNode(wd, st.dev(), st.ino(), parent, name, path);
            parent.children.put(name, node);
            byWd.put(wd, node);
        } else if (node.parent != parent || !node.name.equals(name)) {
            node.moveTo(parent, name, path); // found where events we missed (or never had) put it
        }
        fds.put(node, fd);
        for (TreeWatch w : ws) {
            if (node.watches.contains(w)) {
                continue;
            }
            if (w.directories >= maxDirectories) {
                hitLimit(
                        w,
                        new WatchLimitException(
                                "--watch-max-directories",
                                "the watch of /" + w.key.watchedPath() + " reached --watch-max-directories ("
                                        + maxDirectories
                                        + " directories); exclude some (e.g. node_modules) or raise the flag"));
                continue;
            }
            node.watches.add(w);
            w.directories++;
        }
        if (node.watches.isEmpty()) {
            removeNode(node);
            return null;
        }
        return node;
    }

    private void hitLimit(TreeWatch w, WatchLimitException e) {
        if (!w.ended) {
            w.ended = true;
            w.limitHit = e;
            limited.add(w);
        }
    }

    /** The watches that hit a limit since the last call (already marked ended, not yet released). */
    List<TreeWatch> drainLimited() {
        if (limited.isEmpty()) {
            return List.of();
        }
        List<TreeWatch> out = new ArrayList<>(limited);
        limited.clear();
        return out;
    }

    /** Every directory {@code w} covers. */
    List<DirNode> nodesOf(TreeWatch w) {
        List<DirNode> out = new ArrayList<>();
        if (w.top == null || !w.top.watches.contains(w)) {
            return out;
        }
        out.add(w.top);
        for (int i = 0; i < out.size(); i++) {
            for (DirNode c : out.get(i).children.values()) {
                if (c.watches.contains(w)) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /** {@code w} lets go of all its directories. */
    void release(TreeWatch w) {
        for (DirNode n : nodesOf(w)) {
            drop(n, w);
        }
        w.directories = 0;
    }

    /** The watches {@code which} selects let go of {@code sub} and everything below it. */
    void releaseSubtree(DirNode sub, Predicate<TreeWatch> which) {
        for (DirNode n : sub.subtree()) {
            for (TreeWatch w : new ArrayList<>(n.watches)) {
                if (which.test(w)) {
                    drop(n, w);
                }
            }
        }
    }

    /** The watches whose top is {@code sub} or below it. */
    List<TreeWatch> topsIn(DirNode sub) {
        List<TreeWatch> out = new ArrayList<>();
        for (DirNode n : sub.subtree()) {
            for (TreeWatch w : n.watches) {
                if (w.top == n && !out.contains(w)) {
                    out.add(w);
                }
            }
        }
        return out;
    }

    /** {@code w} lets go of the one directory {@code n}. */
    void drop(DirNode n, TreeWatch w) {
        if (n.watches.remove(w)) {
            w.directories--;
            if (n.watches.isEmpty()) {
                removeNode(n);
            }
        }
    }

    /** Forgets a directory and removes its kernel watch; watched directories below it stay, unlinked. */
    void removeNode(DirNode n) {
        if (byWd.get(n.wd) != n) {
            return;
        }
        byWd.remove(n.wd);
        inotify.removeWatch(n.wd);
        fds.forget(n);
        if (n.parent != null && n.parent.children.get(n.name) == n) {
            n.parent.children.remove(n.name);
        }
        for (DirNode c : n.children.values()) {
            c.parent = null;
        }
        n.children.clear();
        n.watches.clear();
    }

    /** The kernel dropped the watch (the directory is gone): forget the node without asking it to. */
    void forgetNode(DirNode n) {
        if (byWd.get(n.wd) == n) {
            for (TreeWatch w : n.watches) {
                w.directories--;
            }
            n.watches.clear();
            removeNode(n);
        }
    }

    DirectoryHandles.Stat stat(DirNode dir, String name) {
        int fd = fds.of(dir);
        return fd < 0 ? null : DirectoryHandles.stat(fd, NodeDescriptors.raw(name));
    }

    DirectoryHandles.Stat statSelf(DirNode dir) {
        int fd = fds.of(dir);
        return fd < 0 ? null : DirectoryHandles.stat(fd);
    }

    /** Forgets every cached descriptor (after an overflow, where directories may have moved unseen). */
    void dropDescriptors(DirNode n) {
        fds.forget(n);
    }

    private io.sandboxd.daemon.fs.SandboxRoot rootOf() {
        return fds.root();
    }

    static WatchLimitException kernelLimit() {
        return new WatchLimitException(
                "fs.inotify.max_user_watches",
                "the kernel's inotify watch limit fs.inotify.max_user_watches ("
                        + Inotify.kernelLimit("max_user_watches")
                        + ") is reached; exclude directories or raise the limit");
    }

    private static List<TreeWatch> live(List<TreeWatch> ws) {
        List<TreeWatch> out = new ArrayList<>(ws.size());
        for (TreeWatch w : ws) {
            if (!w.ended) {
                out.add(w);
            }
        }
        return out;
    }

    private static String lastName(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }
}
