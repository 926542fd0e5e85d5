package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import java.util.ArrayList;
import java.util.List;

/**
 * Confined directory descriptors, entry names and entry metadata for the filesystem watch
 * ({@code fs.watch}), which lives in its own package but must touch the tree exactly as the rest of
 * {@code fs} does: every descriptor is reached from the root through {@link SandboxRoot} or
 * relative to a descriptor reached that way, never following a symlink, so nothing it watches or
 * reports can lie outside the root. Names are raw bytes.
 */
public final class DirectoryHandles {
    /** What the kernel says of an entry, not following a final symlink. */
    public record Stat(int fileType, long size, long mtimeSeconds, int mtimeNanos, long dev, long ino) {
        public EntryType type() {
            return EntryType.of(fileType);
        }
    }

    /** Receives the entries of a directory as {@code getdents64} returns them. */
    public interface EntryVisitor {
        /**
         * @param name      the entry's name (a fresh array the visitor may keep)
         * @param directory true when it is a directory (not following a symlink)
         */
        void entry(byte[] name, boolean directory);
    }

    /** A client's path resolved for watching: its real segments below the root, and whether it is a directory. */
    public record Target(List<byte[]> segments, boolean directory) {}

    private DirectoryHandles() {}

    /**
     * Resolves a client path (runtime-contract §2.1: confined, symlinks followed and re-confined)
     * to what a watch will observe.
     *
     * @throws PathException NOT_FOUND when it does not exist, and every confinement failure
     */
    public static Target resolve(SandboxRoot root, byte[] clientPath) throws PathException {
        try (SandboxRoot.Resolved r = root.resolve(clientPath, SandboxRoot.Mode.FOLLOW)) {
            if (!r.exists()) {
                throw SandboxRoot.notFound();
            }
            List<byte[]> segments = new ArrayList<>(r.realSegments().size());
            for (Name n : r.realSegments()) {
                segments.add(n.bytes().clone());
            }
            boolean directory;
            try {
                directory = r.isDirectoryTarget() || Posix.typeAt(r.dirFd(), r.name()) == Posix.S_IFDIR;
            } catch (LastErrorException e) {
                throw SandboxRoot.map(e);
            }
            return new Target(segments, directory);
        }
    }

    /**
     * An {@code O_PATH} descriptor of the directory at {@code segments} below the root (the root
     * itself when empty); intermediate symlinks are expanded and re-confined, the last component
     * must be a directory itself (not a link to one).
     *
     * @return the descriptor, or -1 when there is no such directory (missing, or not a directory)
     */
    public static int openDirectory(SandboxRoot root, List<byte[]> segments) throws PathException {
        List<Name> names = new ArrayList<>(segments.size());
        for (byte[] s : segments) {
            names.add(Name.of(s));
        }
        if (names.isEmpty()) {
            return openChild(root.rootFd(), new byte[] {'.'});
        }
        try (SandboxRoot.Resolved r = root.resolve(new UserPath(names), SandboxRoot.Mode.NOFOLLOW_LAST)) {
            return r.exists() ? openChild(r.dirFd(), r.name().bytes()) : -1;
        }
    }

    /** @return an {@code O_PATH} descriptor of the directory {@code name} in {@code dirFd}, or -1 if it is not one */
    public static int openChild(int dirFd, byte[] name) {
        try {
            return Posix.C.openat(
                    dirFd,
                    Name.of(name).cString(),
                    Posix.O_PATH | Posix.O_NOFOLLOW | Posix.O_DIRECTORY | Posix.O_CLOEXEC,
                    0);
        } catch (LastErrorException e) {
            return -1;
        }
    }

    /**
     * Every entry of the directory {@code dirFd} designates, except {@code .} and {@code ..}.
     *
     * @return false when the directory could not be read (it vanished meanwhile, or is not readable)
     */
    public static boolean list(int dirFd, EntryVisitor visitor) {
        try (DirectoryReader reader = new DirectoryReader()) {
            reader.moveTo(DirectoryReader.openSelf(dirFd));
            while (reader.next()) {
                visitor.entry(reader.name().bytes(), reader.isDirectory());
            }
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    /** The entry {@code name} in {@code dirFd} (a symlink itself, not its target), or null when it is gone. */
    public static Stat stat(int dirFd, byte[] name) {
        try {
            return of(Posix.statAt(dirFd, Name.of(name)));
        } catch (LastErrorException e) {
            return null;
        }
    }

    /** The directory {@code fd} designates, or null when the descriptor is unusable. */
    public static Stat stat(int fd) {
        try {
            return of(Posix.stat(fd));
        } catch (LastErrorException e) {
            return null;
        }
    }

    private static Stat of(Posix.Stat s) {
        return new Stat(s.type(), s.size(), s.mtimeSeconds(), s.mtimeNanos(), s.dev(), s.ino());
    }

    public static void close(int fd) {
        Posix.closeQuietly(fd);
    }
}
