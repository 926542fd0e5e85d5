package io.sandboxd.daemon.fs.watch;

import java.util.List;

/**
 * What a watch observes: watches with equal keys are one watch, with one journal, so a client that
 * reconnects with the same path, flags and excludes finds the events it missed.
 *
 * @param dirPath   raw real path of the watched directory (or of the watched file's directory)
 * @param fileName  raw name of the watched file, or null when a directory is watched
 * @param recursive whether subdirectories are watched too
 * @param excludes  the exclude globs as given, in order
 */
record WatchKey(String dirPath, String fileName, boolean recursive, List<String> excludes) {
    WatchKey {
        excludes = List.copyOf(excludes);
    }

    /** The raw path events about the watch itself (resync, error) carry. */
    String watchedPath() {
        return fileName == null ? dirPath : DirNode.join(dirPath, fileName);
    }
}
