package io.sandboxd.daemon.fs.watch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One watched directory: its kernel watch descriptor (one per directory inode for the daemon's
 * inotify instance, shared by every watch that covers it), where it is now, its watched
 * subdirectories, and the watches that report its entries. Mutable; watch thread only.
 */
final class DirNode {
    final int wd;
    final long dev;
    final long ino;
    /** Null for a node whose parent is not watched (a watch's top, or one left alone by its parent's release). */
    DirNode parent;
    /** Raw name in the parent (see {@link WatchEvent} for raw strings). */
    String name;
    /** Raw path relative to the root, "" for the root. */
    String path;

    final Map<String, DirNode> children = new HashMap<>();
    /** The watches whose tree includes this directory: they report its entries. */
    final List<TreeWatch> watches = new ArrayList<>(2);

    DirNode(int wd, long dev, long ino, DirNode parent, String name, String path) {
        this.wd = wd;
        this.dev = dev;
        this.ino = ino;
        this.parent = parent;
        this.name = name;
        this.path = path;
    }

    static String join(String dir, String name) {
        return dir.isEmpty() ? name : dir + "/" + name;
    }

    String childPath(String childName) {
        return join(path, childName);
    }

    /** Puts this node at {@code name} in {@code newParent} (null: unlinked), updating the paths below it. */
    void moveTo(DirNode newParent, String newName, String newPath) {
        if (parent != null && parent.children.get(name) == this) {
            parent.children.remove(name);
        }
        parent = newParent;
        name = newName;
        if (newParent != null) {
            newParent.children.put(newName, this);
        }
        if (!newPath.equals(path)) {
            path = newPath;
            List<DirNode> todo = new ArrayList<>(children.values());
            while (!todo.isEmpty()) {
                DirNode n = todo.remove(todo.size() - 1);
                n.path = n.parent.childPath(n.name);
                todo.addAll(n.children.values());
            }
        }
    }

    /** This node and every watched directory below it. */
    List<DirNode> subtree() {
        List<DirNode> out = new ArrayList<>();
        out.add(this);
        for (int i = 0; i < out.size(); i++) {
            out.addAll(out.get(i).children.values());
        }
        return out;
    }

    @Override
    public String toString() {
        return "DirNode[" + wd + " /" + path + "]";
    }
}
