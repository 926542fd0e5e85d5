package io.sandboxd.daemon.fs.watch;

import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.DirectoryHandles;
import io.sandboxd.daemon.fs.SandboxRoot;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code O_PATH} descriptors of recently used watched directories, least recently used closed
 * first. Watches hold no descriptor per directory (a tree of thousands would cost thousands of
 * descriptors); events come in bursts per directory, so a few cached ones save the walk from the
 * root for almost every stat. A descriptor is checked to be the node's very inode (device and
 * inode number) when opened, so a path that went stale never yields a wrong directory.
 *
 * <p>They are all closed at the end of every cycle of the watch thread ({@link #clear}): a
 * descriptor pins its directory's dentry, and the kernel queues {@code IN_DELETE_SELF} of a removed
 * directory only once the last such reference is gone, so a descriptor kept while idle would hide
 * the removal of a watched directory.
 */
final class NodeDescriptors implements AutoCloseable {
    private final SandboxRoot root;
    private final int capacity;
    private final LinkedHashMap<DirNode, Integer> open = new LinkedHashMap<>(16, 0.75f, true);

    NodeDescriptors(SandboxRoot root, int capacity) {
        this.root = root;
        this.capacity = capacity;
    }

    SandboxRoot root() {
        return root;
    }

    /** @return a descriptor of {@code node}'s directory (owned here), or -1 when it is gone or moved out of reach */
    int of(DirNode node) {
        Integer cached = open.get(node);
        if (cached != null) {
            return cached;
        }
        int fd = -1;
        if (node.parent != null) {
            Integer parentFd = open.get(node.parent);
            if (parentFd != null) {
                fd = DirectoryHandles.openChild(parentFd, raw(node.name));
            }
        }
        if (fd < 0) {
            try {
                fd = DirectoryHandles.openDirectory(root, segments(node.path));
            } catch (SandboxException e) {
                return -1;
            }
        }
        if (fd < 0) {
            return -1;
        }
        DirectoryHandles.Stat st = DirectoryHandles.stat(fd);
        if (st == null || st.dev() != node.dev || st.ino() != node.ino) {
            DirectoryHandles.close(fd);
            return -1;
        }
        put(node, fd);
        return fd;
    }

    /** Takes over {@code fd}, known to be {@code node}'s directory. */
    void put(DirNode node, int fd) {
        Integer previous = open.put(node, fd);
        if (previous != null && previous != fd) {
            DirectoryHandles.close(previous);
        }
        Iterator<Map.Entry<DirNode, Integer>> it = open.entrySet().iterator();
        while (open.size() > capacity && it.hasNext()) {
            Map.Entry<DirNode, Integer> e = it.next();
            if (e.getKey() != node) {
                DirectoryHandles.close(e.getValue());
                it.remove();
            }
        }
    }

    void forget(DirNode node) {
        Integer fd = open.remove(node);
        if (fd != null) {
            DirectoryHandles.close(fd);
        }
    }

    static byte[] raw(String rawString) {
        return rawString.getBytes(StandardCharsets.ISO_8859_1);
    }

    static List<byte[]> segments(String rawPath) {
        List<byte[]> out = new ArrayList<>();
        if (rawPath.isEmpty()) {
            return out;
        }
        int start = 0;
        for (int i = 0; i <= rawPath.length(); i++) {
            if (i == rawPath.length() || rawPath.charAt(i) == '/') {
                out.add(raw(rawPath.substring(start, i)));
                start = i + 1;
            }
        }
        return out;
    }

    /** Closes every descriptor (end of a cycle). */
    void clear() {
        close();
    }

    @Override
    public void close() {
        for (int fd : open.values()) {
            DirectoryHandles.close(fd);
        }
        open.clear();
    }
}
