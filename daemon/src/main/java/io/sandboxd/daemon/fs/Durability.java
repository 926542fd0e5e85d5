package io.sandboxd.daemon.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

/** Makes a directory's entries (a rename, a new name) durable. */
final class Durability {
    private Durability() {}

    /** fsync of the directory {@code dirFd} designates; best effort (some filesystems refuse it). */
    static void syncDirectory(int dirFd) {
        try (FileChannel dir = FileChannel.open(Posix.fdPath(dirFd), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // the change itself happened; only its durability across a crash is not assured
        }
    }
}
