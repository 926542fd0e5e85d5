package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.time.Instant;
import java.util.List;

/**
 * The everyday file operations of the extension API beyond upstream's read/write/delete
 * (runtime-contract §4.3): stat, mkdir, move, chmod. Knows nothing about HTTP. Every path goes
 * through {@link SandboxRoot#resolve}, and every call after it is relative to the descriptors
 * the resolution returned, so a symlink swapped in meanwhile cannot redirect it.
 */
public final class FileOperations {
    /** What {@link #mkdir} gives a new directory unless asked otherwise. */
    public static final int DEFAULT_DIRECTORY_MODE = 0755;

    private final SandboxRoot root;

    public FileOperations(SandboxRoot root) {
        this.root = root;
    }

    /**
     * @param follow false: a final symlink is described itself (type {@code symlink}, its target);
     *               true: what it leads to, as {@code GET /v1/files} would serve it
     */
    public EntryStat stat(byte[] clientPath, boolean follow) throws SandboxException {
        UserPath path = root.parse(clientPath);
        SandboxRoot.Mode mode = follow ? SandboxRoot.Mode.FOLLOW : SandboxRoot.Mode.NOFOLLOW_LAST;
        try (SandboxRoot.Resolved r = root.resolve(path, mode)) {
            if (!r.exists()) {
                throw SandboxRoot.notFound();
            }
            Posix.Stat st = r.isDirectoryTarget() ? Posix.stat(r.dirFd()) : Posix.statAt(r.dirFd(), r.name());
            EntryType type = EntryType.of(st.mode());
            byte[] target = null;
            EntryStat.LinkResolution link = null;
            if (type == EntryType.SYMLINK) {
                target = Posix.readlinkat(r.dirFd(), r.name());
                if (target == null) {
                    throw new PathException(PathFailure.CHANGED, "the entry changed during the request");
                }
                link = resolution(r);
            }
            return new EntryStat(
                    r.realSegments(),
                    type,
                    st.size(),
                    st.mode() & 07777,
                    Instant.ofEpochSecond(st.mtimeSeconds(), st.mtimeNanos()),
                    type == EntryType.FILE ? FileStore.info(st).etag() : null,
                    target,
                    link);
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        }
    }

    /** Follows the link at {@code r} exactly as any API path through it would be followed. */
    private EntryStat.LinkResolution resolution(SandboxRoot.Resolved r) {
        try (SandboxRoot.Resolved t = root.resolve(new UserPath(r.realSegments()), SandboxRoot.Mode.FOLLOW)) {
            return t.exists() ? EntryStat.LinkResolution.INSIDE : EntryStat.LinkResolution.DANGLING;
        } catch (PathException e) {
            return e.failure() == PathFailure.ESCAPES
                    ? EntryStat.LinkResolution.OUTSIDE
                    : EntryStat.LinkResolution.DANGLING;
        }
    }

    // ---------------------------------------------------------------- list

    /**
     * One page of a deep listing of a directory ({@link TreeListing}); the caller closes it.
     *
     * @param after where the previous page ended ({@link ListCursor#decode}); null for the first
     */
    public TreeListing list(byte[] clientPath, int depth, int limit, ListCursor after) throws SandboxException {
        return TreeListing.open(root, clientPath, depth, limit, after);
    }

    // ---------------------------------------------------------------- mkdir

    /**
     * Creates a directory with exactly {@code mode} (no umask). Without {@code parents} the parent
     * must exist and the name must not; with it, missing parents are created (0755, umask
     * applies) and an existing directory (or symlink to one) is success, as {@code mkdir -p}.
     * A final symlink is never followed to create its target.
     *
     * @return true when this call created the directory
     */
    public boolean mkdir(byte[] clientPath, boolean parents, int mode) throws SandboxException {
        UserPath path = root.parse(clientPath);
        if (path.isRoot()) {
            if (parents) {
                return false;
            }
            throw exists("the sandbox root already exists");
        }
        if (parents) {
            createParents(path);
        }
        try (SandboxRoot.Resolved r = root.resolve(path, SandboxRoot.Mode.NOFOLLOW_LAST)) {
            try {
                Posix.C.mkdirat(r.dirFd(), r.name().cString(), 0700);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != Posix.EEXIST) {
                    throw SandboxRoot.map(e);
                }
                if (parents && isDirectoryOrLinkToOne(r)) {
                    return false;
                }
                throw exists("an entry of that name already exists");
            }
            // 0700 until the owner and the mode are set: no other user sees it half made
            root.owner().applyAt(r.dirFd(), r.name());
            withPathFd(r, fd -> Posix.chmod(fd, mode));
            Durability.syncDirectory(r.dirFd());
            return true;
        }
    }

    /** Creates every missing directory above the target, each confined as it is walked. */
    private void createParents(UserPath path) throws SandboxException {
        List<Name> segs = path.segments();
        if (segs.size() < 2) {
            return;
        }
        UserPath parent = new UserPath(segs.subList(0, segs.size() - 1));
        try (SandboxRoot.Resolved p = root.resolve(parent, SandboxRoot.Mode.CREATE_PARENTS)) {
            if (!p.exists()) {
                try {
                    Posix.C.mkdirat(p.dirFd(), p.name().cString(), 0755);
                    root.owner().applyAt(p.dirFd(), p.name());
                } catch (LastErrorException e) {
                    if (e.getErrorCode() != Posix.EEXIST) {
                        throw SandboxRoot.map(e);
                    }
                }
            }
        }
    }

    private boolean isDirectoryOrLinkToOne(SandboxRoot.Resolved r) throws SandboxException {
        try {
            int type = Posix.typeAt(r.dirFd(), r.name());
            if (type == Posix.S_IFDIR) {
                return true;
            }
            if (type != Posix.S_IFLNK) {
                return false;
            }
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        }
        try (SandboxRoot.Resolved t = root.resolve(new UserPath(r.realSegments()), SandboxRoot.Mode.FOLLOW)) {
            return t.exists() && t.isDirectoryTarget();
        } catch (PathException e) {
            return false;
        }
    }

    private static SandboxException exists(String message) {
        return new SandboxException(ErrorKind.CONFLICT, message);
    }

    // ---------------------------------------------------------------- chmod

    /**
     * Sets the mode of an existing entry, following a final symlink (as chmod(1) does) within
     * the root. Set-user-ID and set-group-ID bits are refused: the daemon may run with more
     * privilege than the sandbox's processes, and must not hand them a way up.
     */
    public void chmod(byte[] clientPath, int mode) throws SandboxException {
        checkMode(mode);
        UserPath path = root.parse(clientPath);
        if (path.isRoot()) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "the sandbox root's mode cannot be changed");
        }
        try (SandboxRoot.Resolved r = root.resolve(path, SandboxRoot.Mode.FOLLOW)) {
            if (!r.exists()) {
                throw SandboxRoot.notFound();
            }
            if (r.isDirectoryTarget()) {
                Posix.chmod(r.dirFd(), mode);
            } else {
                withPathFd(r, fd -> Posix.chmod(fd, mode));
            }
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        }
    }

    /** @throws SandboxException naming the bits that are refused */
    public static void checkMode(int mode) throws SandboxException {
        if ((mode & ~07777) != 0) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "mode must be octal 0000-7777");
        }
        if ((mode & 06000) != 0) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT, "setuid and setgid bits (04000, 02000) cannot be set through the API");
        }
    }

    private interface FdAction {
        void apply(int fd) throws LastErrorException;
    }

    /**
     * Runs {@code action} on an O_PATH descriptor of the (non-directory-target) entry, never
     * through a symlink: one swapped in after resolution is refused, not followed.
     */
    private static void withPathFd(SandboxRoot.Resolved r, FdAction action) throws SandboxException {
        int fd;
        try {
            fd = Posix.openat(r.dirFd(), r.name(), Posix.O_PATH | Posix.O_NOFOLLOW);
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        }
        try {
            if (Posix.stat(fd).type() == Posix.S_IFLNK) {
                throw new PathException(PathFailure.CHANGED, "the entry became a symlink during the request");
            }
            action.apply(fd);
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        } finally {
            Posix.closeQuietly(fd);
        }
    }

    // ---------------------------------------------------------------- move

    /**
     * Renames {@code from} to exactly {@code to} (not into it, should it be a directory), in
     * one atomic rename within the filesystem. A final symlink at either end is the entry
     * itself, never followed. Without {@code overwrite} an existing {@code to} is a conflict,
     * decided by the kernel ({@code RENAME_NOREPLACE}), so no racing creator is ever replaced.
     */
    public void move(byte[] fromPath, byte[] toPath, boolean overwrite) throws SandboxException {
        UserPath from = root.parse(fromPath);
        UserPath to = root.parse(toPath);
        if (from.isRoot() || to.isRoot()) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "the sandbox root cannot be moved or replaced");
        }
        try (SandboxRoot.Resolved src = root.resolve(from, SandboxRoot.Mode.NOFOLLOW_LAST);
                SandboxRoot.Resolved dst = root.resolve(to, SandboxRoot.Mode.NOFOLLOW_LAST)) {
            if (!src.exists()) {
                throw SandboxRoot.notFound();
            }
            List<Name> s = src.realSegments();
            List<Name> d = dst.realSegments();
            if (s.equals(d)) {
                return; // rename(2) of a name onto itself: nothing to do
            }
            if (d.size() > s.size() && d.subList(0, s.size()).equals(s)) {
                throw intoItself();
            }
            rename(src.dirFd(), src.name(), dst.dirFd(), dst.name(), overwrite);
            Durability.syncDirectory(dst.dirFd());
            Durability.syncDirectory(src.dirFd());
        }
    }

    private static void rename(int fromDir, Name fromName, int toDir, Name toName, boolean overwrite)
            throws SandboxException {
        try {
            if (overwrite) {
                Posix.C.renameat(fromDir, fromName.cString(), toDir, toName.cString());
                return;
            }
            Renames.noReplace(fromDir, fromName, toDir, toName);
        } catch (LastErrorException e) {
            throw renameError(e, overwrite);
        }
    }

    private static SandboxException renameError(LastErrorException e, boolean overwrite) {
        return switch (e.getErrorCode()) {
            case Posix.EEXIST, Posix.ENOTEMPTY ->
                overwrite
                        ? new SandboxException(ErrorKind.CONFLICT, "the destination is a directory that is not empty")
                        : new SandboxException(
                                ErrorKind.CONFLICT, "the destination exists; pass overwrite=true to replace it");
            case Posix.EISDIR ->
                new SandboxException(ErrorKind.CONFLICT, "the destination is a directory and the source is not");
            case Posix.ENOTDIR ->
                new SandboxException(ErrorKind.CONFLICT, "the source is a directory and the destination is not");
            case Posix.EINVAL -> intoItself();
            case Posix.EXDEV ->
                new SandboxException(
                        ErrorKind.INVALID_ARGUMENT,
                        "source and destination are on different filesystems: a move is atomic only within one");
            case Posix.EBUSY -> new SandboxException(ErrorKind.CONFLICT, "the source or destination is a mount point");
            default -> SandboxRoot.map(e);
        };
    }

    private static SandboxException intoItself() {
        return new SandboxException(ErrorKind.INVALID_ARGUMENT, "cannot move a directory into itself");
    }
}
