package io.sandboxd.daemon.fs.watch;

import java.util.ArrayList;
import java.util.List;

/**
 * One watch: a directory (recursive or not, with its excludes) or a single file, the directories
 * it has kernel watches on, and its journal. Watch thread only, except the journal.
 */
final class TreeWatch {
    final WatchKey key;
    final ExcludeGlobs excludes;
    final EventJournal journal;
    DirNode top;
    /** Directories of this watch (nodes listing it). */
    int directories;
    /** Open streams reading it. */
    int streams;
    /** When the last stream left (System.nanoTime), for the linger. */
    long idleSince;
    /** No longer reports anything (a limit, its top went away, or it was ended). */
    boolean ended;
    /** Released and removed from the registry; its journal closes at the next publish. */
    boolean finished;
    /** Set when a limit ended it (the engine then tells its clients which). */
    WatchLimitException limitHit;
    /** True until its first stream has it: a limit hit while opening fails the request instead. */
    boolean opening = true;
    /** Events of the current cycle, appended to the journal together. */
    final List<WatchEvent> outbox = new ArrayList<>();
    /** What the journal holds, as of the last append or trim. */
    long retainedBytes;

    TreeWatch(WatchKey key, ExcludeGlobs excludes, EventJournal journal) {
        this.key = key;
        this.excludes = excludes;
        this.journal = journal;
    }

    boolean recursive() {
        return key.recursive() && key.fileName() == null;
    }

    /** Whether the entry {@code name} of the watched directory {@code dir} is reported by this watch. */
    boolean covers(DirNode dir, String name) {
        if (ended) {
            return false;
        }
        if (key.fileName() != null) {
            return dir == top && name.equals(key.fileName());
        }
        if (excludes.isEmpty()) {
            return true;
        }
        return !excludes.excludes(excludes.needsPath() ? relative(dir, name) : null, name);
    }

    /** The raw path of {@code name} in {@code dir}, relative to this watch's directory. */
    private String relative(DirNode dir, String name) {
        if (dir == top) {
            return name;
        }
        String below = top.path.isEmpty() ? dir.path : dir.path.substring(top.path.length() + 1);
        return DirNode.join(below, name);
    }

    @Override
    public String toString() {
        return "TreeWatch[/" + key.watchedPath() + (key.recursive() ? " recursive" : "") + "]";
    }
}
