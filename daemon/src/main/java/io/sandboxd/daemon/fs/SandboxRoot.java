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
 * The sandbox root and the one place that confines paths to it (runtime-contract §2.1, §1.2 cwd). Every
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
    private final byte[] rootBytes;
    private final int rootFd;
    private final FileOwner owner;

    /** @param root an existing directory; its real path becomes the root */
    public SandboxRoot(Path root) {
        this(root, FileOwner.DAEMON);
    }

    /**
     * @param root  an existing directory; its real path becomes the root
     * @param owner who owns what the API creates in it (directories here, files in {@link FileStore})
     */
    public SandboxRoot(Path root, FileOwner owner) {
        this.owner = owner;
        Path real;
        try {
            real = root.toRealPath();
        } catch (java.io.IOException e) {
            throw new UncheckedIOException("root dir does not exist or cannot be resolved", e);
        }
        this.root = real;
        this.rootString = real.toString();
        this.rootBytes = rootString.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try {
            this.rootFd = Posix.openat(-100 /* AT_FDCWD */, rootString, Posix.O_PATH | Posix.O_DIRECTORY);
        } catch (LastErrorException e) {
            throw new UncheckedIOException(
                    new java.io.IOException("cannot open root dir (errno " + e.getErrorCode() + ")"));
        }
    }

    public UserPath parse(byte[] clientPath) throws PathException {
        return UserPath.parse(clientPath, rootBytes);
    }

    /** Who owns what the API creates under this root. */
    FileOwner owner() {
        return owner;
    }

    /** The root's own descriptor (O_PATH), held for the daemon's life. */
    int rootFd() {
        return rootFd;
    }

    /**
     * The resolved target: a directory descriptor (owned by this object) and, unless the target
     * is that directory itself, the final name inside it.
     */
    public static final class Resolved implements AutoCloseable {
        private final int dirFd;
        private final boolean ownsFd;
        private final Name name;
        private final List<Name> realSegments;
        private final boolean exists;

        Resolved(int dirFd, boolean ownsFd, Name name, List<Name> realSegments, boolean exists) {
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
        public Name name() {
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
        public List<Name> realSegments() {
            return realSegments;
        }

        @Override
        public void close() {
            if (ownsFd) {
                Posix.closeQuietly(dirFd);
            }
        }
    }

    public Resolved resolve(byte[] clientPath, Mode mode) throws PathException {
        return resolve(parse(clientPath), mode);
    }

    public Resolved resolve(UserPath path, Mode mode) throws PathException {
        for (int attempt = 0; ; attempt++) {
            try (Walk walk = new Walk(path, mode)) {
                return walk.toTarget();
            } catch (Retry r) {
                if (attempt >= MAX_RETRIES) {
                    throw new PathException(PathFailure.CHANGED);
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

    /**
     * One resolution: the components still to take, and the stack of directory descriptors
     * opened so far, each relative to the one below it. Closing it closes every descriptor it
     * still holds; the one handed to the {@link Resolved} is no longer among them.
     */
    private final class Walk implements AutoCloseable {
        private final Mode mode;
        private final Deque<Name> todo;
        /** fds.get(0) is the root (not owned); names are the real segments of fds[1..] */
        private final List<Integer> fds = new ArrayList<>();

        private final List<Name> names = new ArrayList<>();
        private int links;
        private int created;

        Walk(UserPath path, Mode mode) {
            this.mode = mode;
            this.todo = new ArrayDeque<>(path.segments());
            fds.add(rootFd);
        }

        Resolved toTarget() throws PathException, Retry {
            while (!todo.isEmpty()) {
                Name seg = todo.pollFirst();
                if (seg.isEmpty() || seg.isDot()) {
                    continue;
                }
                if (seg.isDotDot()) {
                    climb();
                    continue;
                }
                Resolved target = step(seg, isLast(todo));
                if (target != null) {
                    return target;
                }
            }
            return directoryOnTop();
        }

        /** One real component: the target itself, or a directory, a link or a missing parent to get past. */
        private Resolved step(Name seg, boolean last) throws PathException, Retry {
            if (last) {
                Resolved target = finalComponent(seg);
                if (target != null) {
                    return target;
                }
            }
            int fd;
            try {
                fd = Posix.openat(top(), seg, Posix.O_PATH | Posix.O_NOFOLLOW | Posix.O_DIRECTORY);
            } catch (LastErrorException e) {
                return cannotDescend(seg, last, e);
            }
            fds.add(fd);
            names.add(seg);
            return null;
        }

        /** @return the target when the last component needs no descent (kept, missing, not a directory), else null */
        private Resolved finalComponent(Name seg) {
            if (mode == Mode.NOFOLLOW_LAST) {
                return handOff(seg, true);
            }
            // Most targets are files: one statx tells so, where the probes below would
            // fail twice (ENOTDIR, then EINVAL from readlinkat), each failure a Java
            // exception. The use is as racy-safe as before: it is relative to the
            // directory we hold and opens the name with O_NOFOLLOW.
            int type;
            try {
                type = Posix.typeAt(top(), seg);
            } catch (LastErrorException e) {
                if (e.getErrorCode() == Posix.ENOENT) {
                    return handOff(seg, false);
                }
                return null; // the probes of step report it as they always did
            }
            return type != Posix.S_IFDIR && type != Posix.S_IFLNK ? handOff(seg, true) : null;
        }

        /** openat would not open {@code seg} as a directory: find out what it is instead. */
        private Resolved cannotDescend(Name seg, boolean last, LastErrorException e) throws PathException, Retry {
            int errno = e.getErrorCode();
            if (errno == Posix.ENOENT) {
                return missing(seg, last);
            }
            if (errno == Posix.ENOTDIR || errno == Posix.ELOOP) {
                return notADirectory(seg, last);
            }
            throw map(e);
        }

        /** A missing last component is a target that does not exist; a missing parent is created or fatal. */
        private Resolved missing(Name seg, boolean last) throws PathException, Retry {
            if (last) {
                return handOff(seg, false);
            }
            if (mode != Mode.CREATE_PARENTS) {
                throw notFound();
            }
            if (++created > 4 * UserPath.MAX_PATH_BYTES) {
                throw new Retry();
            }
            mkdir(top(), seg);
            todo.addFirst(seg); // and descend into it next
            return null;
        }

        /** A symlink is expanded and walked; any other file is the target if last, a dead end otherwise. */
        private Resolved notADirectory(Name seg, boolean last) throws PathException, Retry {
            byte[] target;
            try {
                target = Posix.readlinkat(top(), seg);
            } catch (LastErrorException e) {
                if (e.getErrorCode() == Posix.ENOENT) {
                    throw new Retry();
                }
                throw map(e);
            }
            if (target == null) {
                if (last) {
                    return handOff(seg, true);
                }
                throw new PathException(PathFailure.PARENT_NOT_DIRECTORY);
            }
            expandLink(target);
            return null;
        }

        /** The link's target takes its place: relative to the directory we are in, or absolute from the root. */
        private void expandLink(byte[] target) throws PathException {
            if (++links > MAX_SYMLINKS) {
                throw new PathException(PathFailure.TOO_MANY_LINKS);
            }
            if (target.length == 0) {
                throw notFound();
            }
            if (target[0] == '/') {
                List<Name> rel = confineAbsoluteLink(target);
                while (fds.size() > 1) {
                    pop();
                }
                pushFront(todo, rel);
            } else {
                pushFront(todo, UserPath.split(target));
            }
        }

        private void climb() throws PathException {
            if (names.isEmpty()) {
                throw UserPath.escapes();
            }
            pop();
        }

        private void pop() {
            Posix.closeQuietly(fds.remove(fds.size() - 1));
            names.remove(names.size() - 1);
        }

        private int top() {
            return fds.get(fds.size() - 1);
        }

        /** The target is the directory on top of the stack. */
        private Resolved directoryOnTop() {
            int top = fds.remove(fds.size() - 1);
            return new Resolved(top, top != rootFd, null, names, true);
        }

        /** Gives the top descriptor to a Resolved for {@code name} inside it. */
        private Resolved handOff(Name name, boolean exists) {
            int top = fds.remove(fds.size() - 1);
            boolean owns = top != rootFd;
            List<Name> real = new ArrayList<>(names);
            if (owns) {
                names.remove(names.size() - 1);
            }
            real.add(name);
            return new Resolved(top, owns, name, real, exists);
        }

        @Override
        public void close() {
            for (int i = 1; i < fds.size(); i++) {
                Posix.closeQuietly(fds.get(i));
            }
        }
    }

    private static boolean isLast(Deque<Name> todo) {
        for (Name s : todo) {
            if (!s.isEmpty() && !s.isDot()) {
                return false;
            }
        }
        return true;
    }

    /** An absolute link target, lexically (as the kernel would see it from "/"): only the real root prefix is inside. */
    private List<Name> confineAbsoluteLink(byte[] target) throws PathException {
        List<Name> segs = UserPath.lexicalClean(UserPath.split(target), false);
        List<Name> rootSegs = UserPath.lexicalClean(UserPath.split(rootBytes), false);
        if (!UserPath.startsWith(segs, rootSegs)) {
            throw UserPath.escapes();
        }
        return segs.subList(rootSegs.size(), segs.size());
    }

    private static void pushFront(Deque<Name> todo, List<Name> parts) {
        for (int i = parts.size() - 1; i >= 0; i--) {
            todo.addFirst(parts.get(i));
        }
    }

    /** Creates a missing parent (0755, umask applies), owned by the API's file owner. */
    private void mkdir(int dirFd, Name name) throws PathException {
        try {
            Posix.C.mkdirat(dirFd, name.cString(), 0755);
        } catch (LastErrorException e) {
            if (e.getErrorCode() != Posix.EEXIST) {
                throw map(e);
            }
            return; // someone else's directory: left as it is
        }
        owner.applyAt(dirFd, name);
    }

    static PathException notFound() {
        return new PathException(PathFailure.NOT_FOUND);
    }

    /** errno → a client-facing error without host paths. */
    static PathException map(LastErrorException e) {
        return switch (e.getErrorCode()) {
            case Posix.ENOENT -> notFound();
            case Posix.ENOTDIR -> new PathException(PathFailure.PARENT_NOT_DIRECTORY);
            case Posix.EACCES, Posix.EPERM -> new PathException(PathFailure.ACCESS_DENIED);
            case Posix.EROFS -> new PathException(PathFailure.READ_ONLY);
            case Posix.ENAMETOOLONG -> new PathException(PathFailure.NAME_TOO_LONG);
            case Posix.ELOOP -> new PathException(PathFailure.TOO_MANY_LINKS);
            case Posix.ENOSPC, Posix.EDQUOT -> new PathException(PathFailure.NO_SPACE);
            case Posix.EISDIR -> new PathException(PathFailure.IS_DIRECTORY);
            case Posix.ENOTEMPTY, Posix.EEXIST -> new PathException(PathFailure.NOT_EMPTY);
            case Posix.ENXIO -> new PathException(PathFailure.NOT_REGULAR);
            default -> new PathException(PathFailure.OTHER, "filesystem error (errno " + e.getErrorCode() + ")");
        };
    }

    /**
     * Resolves a process working directory (runtime-contract §1.2): unset/empty → the root; relative →
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
        Resolved resolved;
        try {
            resolved = resolve(cwd.getBytes(java.nio.charset.StandardCharsets.UTF_8), Mode.FOLLOW);
        } catch (PathException e) {
            throw workingDirectoryError(cwd, e);
        }
        try (Resolved r = resolved) {
            if (!r.exists()) {
                throw new SandboxException(ErrorKind.NOT_FOUND, "cwd \"" + cwd + "\" does not exist");
            }
            if (!r.isDirectoryTarget()) {
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cwd \"" + cwd + "\" is not a directory");
            }
            Path p = root;
            for (Name s : r.realSegments()) {
                if (!s.isUtf8()) {
                    // the child's cwd and PWD are text: a name that is not UTF-8 cannot be one
                    throw new SandboxException(
                            ErrorKind.INVALID_ARGUMENT,
                            "cwd \"" + cwd + "\" resolves through a name that is not valid UTF-8");
                }
                p = p.resolve(s.display());
            }
            return p;
        }
    }

    /** A cwd that does not resolve, told in terms of the cwd the client sent. */
    private static SandboxException workingDirectoryError(String cwd, PathException e) {
        if (e.failure() == PathFailure.ESCAPES) {
            return new SandboxException(
                    ErrorKind.PERMISSION_DENIED, "cwd: access denied: path \"" + cwd + "\": path escapes sandbox root");
        }
        return switch (e.kind()) {
            case PERMISSION_DENIED ->
                new SandboxException(ErrorKind.PERMISSION_DENIED, "cwd \"" + cwd + "\": permission denied");
            case NOT_FOUND -> new SandboxException(ErrorKind.NOT_FOUND, "cwd \"" + cwd + "\" does not exist");
            case INVALID_ARGUMENT ->
                new SandboxException(ErrorKind.INVALID_ARGUMENT, "cwd \"" + cwd + "\": " + e.getMessage());
            default -> e;
        };
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
