package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * The sandbox root and the one place that confines paths to it (CONTRACT §2.1, §1.2 cwd). Every
 * filesystem operation and every process cwd goes through {@link #resolve}.
 *
 * <p>Resolution walks one component at a time with {@code openat(O_PATH|O_NOFOLLOW)} from a
 * descriptor of the root held for the daemon's life. Symlinks are expanded by us, not the
 * kernel, and every expansion is confined again; so a link swapped in between our check and the
 * use cannot redirect the use: the use happens relative to the directory descriptor we already
 * hold ({@link Resolved}), and the last component is opened with {@code O_NOFOLLOW}.
 */
public final class SandboxRoot implements AutoCloseable {
    /** Same bound as the kernel's ELOOP. */
    static final int MAX_SYMLINKS = 40;
    private static final int MAX_RETRIES = 8;

    /** How the last component is treated. */
    public enum Mode {
        /** Follow a final symlink; the final component may be missing (then {@code exists()==false}). */
        FOLLOW,
        /** As FOLLOW, and missing parent directories are created (mode 0755, umask applies). */
        CREATE_PARENTS,
        /** Do not follow a final symlink: the link itself is the target (DELETE). */
        NOFOLLOW_LAST
    }

    private final Path root;
    private final String rootString;
    private final int rootFd;

    /** @param root an existing directory; its real path becomes the root */
    public SandboxRoot(Path root) {
        Path real;
        try {
            real = root.toRealPath();
        } catch (java.io.IOException e) {
            throw new UncheckedIOException("root dir does not exist or cannot be resolved", e);
        }
        this.root = real;
        this.rootString = real.toString();
        try {
            this.rootFd = Posix.openat(-100 /* AT_FDCWD */, rootString, Posix.O_PATH | Posix.O_DIRECTORY);
        } catch (LastErrorException e) {
            throw new UncheckedIOException(new java.io.IOException("cannot open root dir (errno " + e.getErrorCode() + ")"));
        }
    }

    public Path path() {
        return root;
    }

    public UserPath parse(String clientPath) throws SandboxException {
        return UserPath.parse(clientPath, rootString);
    }

    /**
     * The resolved target: a directory descriptor (owned by this object) and, unless the target
     * is that directory itself, the final name inside it.
     */
    public static final class Resolved implements AutoCloseable {
        private final int dirFd;
        private final boolean ownsFd;
        private final String name;
        private final List<String> realSegments;
        private final boolean exists;

        Resolved(int dirFd, boolean ownsFd, String name, List<String> realSegments, boolean exists) {
            this.dirFd = dirFd;
            this.ownsFd = ownsFd;
            this.name = name;
            this.realSegments = List.copyOf(realSegments);
            this.exists = exists;
        }

        /** Descriptor of the target directory (when {@link #name()} is null) or of its parent. */
        public int dirFd() {
            return dirFd;
        }

        /** Final name inside {@link #dirFd()}, or null when the target is the directory itself. */
        public String name() {
            return name;
        }

        public boolean isDirectoryTarget() {
            return name == null;
        }

        /** False only when the final component does not exist (FOLLOW/CREATE_PARENTS). */
        public boolean exists() {
            return exists;
        }

        /** Real segments below the root of the target (no symlinks in them). */
        public List<String> realSegments() {
            return realSegments;
        }

        /** A path the kernel resolves through our descriptor, never through a swappable name. */
        public Path fdPath() {
            return name == null ? Posix.fdPath(dirFd) : Posix.fdPath(dirFd, name);
        }

        @Override
        public void close() {
            if (ownsFd) {
                Posix.closeQuietly(dirFd);
            }
        }
    }

    public Resolved resolve(String clientPath, Mode mode) throws SandboxException {
        return resolve(parse(clientPath), mode);
    }

    public Resolved resolve(UserPath path, Mode mode) throws SandboxException {
        for (int attempt = 0; ; attempt++) {
            try {
                return walk(path, mode);
            } catch (Retry r) {
                if (attempt >= MAX_RETRIES) {
                    throw new SandboxException(ErrorKind.CONFLICT, "path changed repeatedly during resolution");
                }
            }
        }
    }

    /** The tree changed under us in a way that is safe but needs a fresh walk. */
    private static final class Retry extends Exception {
        Retry() {
            super(null, null, false, false);
        }
    }

    private Resolved walk(UserPath path, Mode mode) throws SandboxException, Retry {
        Deque<String> todo = new ArrayDeque<>(path.segments());
        // fds.get(0) is the root (not owned); names are the real segments of fds[1..]
        List<Integer> fds = new ArrayList<>();
        List<String> names = new ArrayList<>();
        fds.add(rootFd);
        int links = 0;
        int created = 0;
        try {
            while (!todo.isEmpty()) {
                String seg = todo.pollFirst();
                if (seg.isEmpty() || seg.equals(".")) {
                    continue;
                }
                if (seg.equals("..")) {
                    if (names.isEmpty()) {
                        throw UserPath.escapes();
                    }
                    Posix.closeQuietly(fds.remove(fds.size() - 1));
                    names.remove(names.size() - 1);
                    continue;
                }
                boolean last = isLast(todo);
                int top = fds.get(fds.size() - 1);
                if (last && mode == Mode.NOFOLLOW_LAST) {
                    Resolved r = handOff(fds, names, seg, true);
                    return r;
                }
                if (last) {
                    // Most targets are files: one statx tells so, where the probes below would
                    // fail twice (ENOTDIR, then EINVAL from readlinkat), each failure a Java
                    // exception. The use is as racy-safe as before: it is relative to the
                    // directory we hold and opens the name with O_NOFOLLOW.
                    int type;
                    try {
                        type = Posix.typeAt(top, seg);
                    } catch (LastErrorException e) {
                        if (e.getErrorCode() == Posix.ENOENT) {
                            return handOff(fds, names, seg, false);
                        }
                        type = -1; // the probes below report it as they always did
                    }
                    if (type >= 0 && type != Posix.S_IFDIR && type != Posix.S_IFLNK) {
                        return handOff(fds, names, seg, true);
                    }
                }
                int fd;
                try {
                    fd = Posix.openat(top, seg, Posix.O_PATH | Posix.O_NOFOLLOW | Posix.O_DIRECTORY);
                } catch (LastErrorException e) {
                    int errno = e.getErrorCode();
                    if (errno == Posix.ENOENT) {
                        if (last) {
                            Resolved r = handOff(fds, names, seg, false);
                            return r;
                        }
                        if (mode == Mode.CREATE_PARENTS) {
                            if (++created > 4 * UserPath.MAX_PATH_BYTES) {
                                throw new Retry();
                            }
                            mkdir(top, seg);
                            todo.addFirst(seg);
                            continue;
                        }
                        throw notFound();
                    }
                    if (errno == Posix.ENOTDIR || errno == Posix.ELOOP) {
                        String target;
                        try {
                            target = Posix.readlinkat(top, seg);
                        } catch (LastErrorException e2) {
                            if (e2.getErrorCode() == Posix.ENOENT) {
                                throw new Retry();
                            }
                            throw map(e2);
                        }
                        if (target == null) {
                            if (last) {
                                Resolved r = handOff(fds, names, seg, true);
                                return r;
                            }
                            throw new SandboxException(ErrorKind.NOT_FOUND,
                                    "path does not exist within the sandbox (a parent is not a directory)");
                        }
                        if (++links > MAX_SYMLINKS) {
                            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "too many levels of symbolic links");
                        }
                        if (target.isEmpty()) {
                            throw notFound();
                        }
                        if (target.startsWith("/")) {
                            String rel = confineAbsoluteLink(target);
                            while (fds.size() > 1) {
                                Posix.closeQuietly(fds.remove(fds.size() - 1));
                                names.remove(names.size() - 1);
                            }
                            pushFront(todo, rel);
                        } else {
                            pushFront(todo, target);
                        }
                        continue;
                    }
                    throw map(e);
                }
                fds.add(fd);
                names.add(seg);
            }
            // The target is the directory on top of the stack.
            int top = fds.remove(fds.size() - 1);
            boolean owns = top != rootFd;
            Resolved r = new Resolved(top, owns, null, names, true);
            return r;
        } finally {
            for (int i = 1; i < fds.size(); i++) {
                Posix.closeQuietly(fds.get(i));
            }
        }
    }

    private static boolean isLast(Deque<String> todo) {
        for (String s : todo) {
            if (!s.isEmpty() && !s.equals(".")) {
                return false;
            }
        }
        return true;
    }

    /** Gives the top descriptor to a Resolved; the caller's finally closes the rest. */
    private Resolved handOff(List<Integer> fds, List<String> names, String name, boolean exists) {
        int top = fds.remove(fds.size() - 1);
        boolean owns = top != rootFd;
        List<String> real = new ArrayList<>(names);
        if (owns) {
            names.remove(names.size() - 1);
        }
        real.add(name);
        return new Resolved(top, owns, name, real, exists);
    }

    private String confineAbsoluteLink(String target) throws SandboxException {
        // lexical, like the kernel would see it from "/"; only the real root prefix is inside
        List<String> segs = new ArrayList<>();
        for (String s : target.split("/")) {
            if (s.isEmpty() || s.equals(".")) {
                continue;
            }
            if (s.equals("..")) {
                if (!segs.isEmpty()) {
                    segs.remove(segs.size() - 1);
                }
                continue;
            }
            segs.add(s);
        }
        List<String> rootSegs = new ArrayList<>();
        for (String s : rootString.split("/")) {
            if (!s.isEmpty()) {
                rootSegs.add(s);
            }
        }
        if (segs.size() < rootSegs.size() || !segs.subList(0, rootSegs.size()).equals(rootSegs)) {
            throw UserPath.escapes();
        }
        return String.join("/", segs.subList(rootSegs.size(), segs.size()));
    }

    private static void pushFront(Deque<String> todo, String rel) {
        String[] parts = rel.split("/");
        for (int i = parts.length - 1; i >= 0; i--) {
            todo.addFirst(parts[i]);
        }
    }

    private static void mkdir(int dirFd, String name) throws SandboxException {
        try {
            Posix.C.mkdirat(dirFd, Posix.cstr(name), 0755);
        } catch (LastErrorException e) {
            if (e.getErrorCode() != Posix.EEXIST) {
                throw map(e);
            }
        }
    }

    static SandboxException notFound() {
        return new SandboxException(ErrorKind.NOT_FOUND, "path does not exist within the sandbox");
    }

    /** errno → a client-facing error without host paths. */
    static SandboxException map(LastErrorException e) {
        return switch (e.getErrorCode()) {
            case Posix.ENOENT -> notFound();
            case Posix.ENOTDIR -> new SandboxException(ErrorKind.NOT_FOUND,
                    "path does not exist within the sandbox (a parent is not a directory)");
            case Posix.EACCES, Posix.EPERM -> new SandboxException(ErrorKind.PERMISSION_DENIED, "permission denied");
            case Posix.EROFS -> new SandboxException(ErrorKind.PERMISSION_DENIED, "read-only file system");
            case Posix.ENAMETOOLONG -> new SandboxException(ErrorKind.INVALID_ARGUMENT, "file name too long");
            case Posix.ELOOP -> new SandboxException(ErrorKind.INVALID_ARGUMENT, "too many levels of symbolic links");
            case Posix.ENOSPC, Posix.EDQUOT -> new SandboxException(ErrorKind.INSUFFICIENT_STORAGE,
                    "no space left on the sandbox volume");
            case Posix.EISDIR -> new SandboxException(ErrorKind.INVALID_ARGUMENT, "target path is a directory");
            case Posix.ENOTEMPTY, Posix.EEXIST -> new SandboxException(ErrorKind.CONFLICT,
                    "directory is not empty; pass recursive=true to remove it");
            case Posix.ENXIO -> new SandboxException(ErrorKind.INVALID_ARGUMENT, "not a regular file or directory");
            default -> new SandboxException(ErrorKind.INTERNAL, "filesystem error (errno " + e.getErrorCode() + ")");
        };
    }

    /**
     * Resolves a process working directory (CONTRACT §1.2): unset/empty → the root; relative →
     * under the root; absolute → re-rooted. Escapes → PERMISSION_DENIED, missing → NOT_FOUND
     * naming the cwd, a non-directory → INVALID_ARGUMENT.
     *
     * @return the real path of the directory, inside the root
     */
    public Path resolveWorkingDirectory(String cwd) throws SandboxException {
        if (cwd == null || cwd.isEmpty()) {
            return root;
        }
        if (cwd.indexOf('\0') >= 0) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cwd contains a NUL byte");
        }
        try (Resolved r = resolve(cwd, Mode.FOLLOW)) {
            if (!r.exists()) {
                throw new SandboxException(ErrorKind.NOT_FOUND, "cwd \"" + cwd + "\" does not exist");
            }
            if (!r.isDirectoryTarget()) {
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cwd \"" + cwd + "\" is not a directory");
            }
            Path p = root;
            for (String s : r.realSegments()) {
                p = p.resolve(s);
            }
            return p;
        } catch (SandboxException e) {
            switch (e.kind()) {
                case PERMISSION_DENIED -> {
                    if (e.getMessage().startsWith("path traversal")) {
                        throw new SandboxException(ErrorKind.PERMISSION_DENIED,
                                "cwd: access denied: path \"" + cwd + "\": path escapes sandbox root");
                    }
                    throw new SandboxException(ErrorKind.PERMISSION_DENIED, "cwd \"" + cwd + "\": permission denied");
                }
                case NOT_FOUND -> {
                    if (e.getMessage().startsWith("cwd")) {
                        throw e;
                    }
                    throw new SandboxException(ErrorKind.NOT_FOUND, "cwd \"" + cwd + "\" does not exist");
                }
                case INVALID_ARGUMENT -> {
                    if (e.getMessage().startsWith("cwd")) {
                        throw e;
                    }
                    throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cwd \"" + cwd + "\": " + e.getMessage());
                }
                default -> throw e;
            }
        }
    }

    @Override
    public void close() {
        Posix.closeQuietly(rootFd);
    }

    @Override
    public String toString() {
        return "SandboxRoot[" + Arrays.toString(new String[] {rootString}) + "]";
    }
}
