package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;

/**
 * Extracts a tar stream into a fresh staging directory (runtime-contract §4.3), writing nothing
 * anywhere else: every entry is created relative to the staging descriptor, walking its parents
 * with {@code O_NOFOLLOW}, so a symlink the archive made earlier (or anyone put there) is never
 * written through, and names are refused before use ({@link ArchivePath}). Files, directories,
 * symlinks (targets as stored) and hard links to entries extracted before are made; devices and
 * FIFOs are refused; set-user-ID and set-group-ID bits are dropped. The caller removes the
 * staging directory when this throws.
 */
final class TarExtractor {
    /** Directories whose mode denies their owner write: given their mode at the end, at most this many. */
    static final int MAX_LOCKED_DIRECTORIES = 65_536;

    private static final int BUFFER = 128 * 1024;

    private final int stagingFd;
    private final FileOwner owner;
    private final ArchiveLimits limits;
    private final byte[] buffer = new byte[BUFFER];
    /** What write(2) is given: only the bytes read are copied into it (see {@link Posix.C#write}). */
    private final Memory nativeBuffer = new Memory(BUFFER);

    private final long address = Pointer.nativeValue(nativeBuffer);
    private final List<DeferredMode> deferred = new ArrayList<>();
    private long entries;
    private long bytes;
    /** The last parent directory walked to, kept open: archives list siblings together. */
    private List<Name> cachedParent;

    private int cachedFd = -1;

    private record DeferredMode(List<Name> path, int mode) {}

    TarExtractor(int stagingFd, FileOwner owner, ArchiveLimits limits) {
        this.stagingFd = stagingFd;
        this.owner = owner;
        this.limits = limits;
    }

    /** @return the number of entries extracted */
    long extract(TarInput in) throws IOException, SandboxException {
        try {
            for (TarInput.Item item = in.nextItem(); item != null; item = in.nextItem()) {
                if (++entries > limits.maxEntries()) {
                    throw new ArchiveRefused("more than " + limits.maxEntries() + " entries (--archive-max-entries)");
                }
                extract(in, item);
            }
            applyDeferredModes();
            return entries;
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        } finally {
            closeUnlessStart(cachedFd, stagingFd);
            cachedFd = -1;
            nativeBuffer.close();
        }
    }

    private void extract(TarInput in, TarInput.Item item) throws IOException, SandboxException {
        TarArchiveEntry e = item.entry();
        List<Name> path = ArchivePath.parse(item.name(), "entry");
        String shown = Utf8.lossy(item.name());
        int mode = e.getMode() & 01777; // no set-user-ID / set-group-ID
        if (path.isEmpty()) {
            if (!e.isDirectory()) {
                throw new ArchiveRefused("a non-directory entry names the archive's top directory");
            }
            setDirectoryMode(stagingFd, null, path, mode);
            return;
        }
        if (e.isCharacterDevice() || e.isBlockDevice() || e.isFIFO()) {
            throw new ArchiveRefused("entry \"" + shown + "\" is a device or FIFO");
        }
        int parent = parent(path, shown);
        Name name = path.get(path.size() - 1);
        if (e.isDirectory()) {
            directory(parent, name, path, mode, shown);
        } else if (e.isSymbolicLink()) {
            symlink(parent, name, item.linkName(), e, shown);
        } else if (e.isLink()) {
            hardLink(parent, name, item.linkName(), shown);
        } else if (e.isFile()) {
            file(in, parent, name, e, mode, shown);
        } else {
            throw new ArchiveRefused(
                    "entry \"" + shown + "\" has an unsupported type '" + (char) e.getLinkFlag() + "'");
        }
    }

    private void directory(int parent, Name name, List<Name> path, int mode, String shown)
            throws LastErrorException, SandboxException {
        try {
            Posix.C.mkdirat(parent, name.cString(), 0700);
            owner.applyAt(parent, name);
        } catch (LastErrorException x) {
            if (x.getErrorCode() != Posix.EEXIST || Posix.typeAt(parent, name) != Posix.S_IFDIR) {
                throw duplicateOr(x, shown);
            }
        }
        setDirectoryMode(parent, name, path, mode);
    }

    /** Owner rwx until the end where the mode denies them, so the archive's later entries still go in. */
    private void setDirectoryMode(int parent, Name name, List<Name> path, int mode)
            throws LastErrorException, SandboxException {
        int now = (mode & 0700) == 0700 ? mode : mode | 0700;
        chmodAt(parent, name, now);
        if (now != mode) {
            if (deferred.size() >= MAX_LOCKED_DIRECTORIES) {
                throw new ArchiveRefused("more than " + MAX_LOCKED_DIRECTORIES
                        + " directories whose mode denies their owner write or search");
            }
            deferred.add(new DeferredMode(path, mode));
        }
    }

    private static void chmodAt(int parent, Name name, int mode) throws LastErrorException {
        if (name == null) {
            Posix.chmod(parent, mode);
            return;
        }
        int fd = Posix.openat(parent, name, Posix.O_PATH | Posix.O_NOFOLLOW | Posix.O_DIRECTORY);
        try {
            Posix.chmod(fd, mode);
        } finally {
            Posix.closeQuietly(fd);
        }
    }

    private void file(TarInput in, int parent, Name name, TarArchiveEntry e, int mode, String shown)
            throws IOException, SandboxException {
        long size = e.getSize();
        if (size > limits.maxBytes() - bytes) {
            throw new ArchiveRefused("more than " + limits.maxBytes() + " bytes of content (--archive-max-bytes)");
        }
        int fd;
        try {
            fd = Posix.openat(parent, name, Posix.O_WRONLY | Posix.O_CREAT | Posix.O_EXCL | Posix.O_NOFOLLOW, 0600);
        } catch (LastErrorException x) {
            throw duplicateOr(x, shown);
        }
        try {
            owner.apply(fd);
            long left = size;
            while (left > 0) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                if (n < 0) {
                    throw new IOException("archive ends inside entry \"" + shown + "\"");
                }
                writeFully(fd, n);
                left -= n;
            }
            bytes += size;
            Posix.C.fchmod(fd, mode);
        } catch (LastErrorException x) {
            throw SandboxRoot.map(x);
        } finally {
            Posix.closeQuietly(fd);
        }
        setTimes(parent, name, e);
    }

    private void writeFully(int fd, int n) throws LastErrorException {
        nativeBuffer.write(0, buffer, 0, n);
        int off = 0;
        while (off < n) {
            off += (int) Posix.C.write(fd, address + off, n - off);
        }
    }

    private void symlink(int parent, Name name, byte[] target, TarArchiveEntry e, String shown)
            throws LastErrorException, SandboxException {
        if (target == null || target.length == 0) {
            throw new ArchiveRefused("symlink \"" + shown + "\" has no target");
        }
        byte[] t = java.util.Arrays.copyOf(target, target.length + 1);
        try {
            Posix.C.symlinkat(t, parent, name.cString());
        } catch (LastErrorException x) {
            throw duplicateOr(x, shown);
        }
        owner.applyAt(parent, name);
        setTimes(parent, name, e);
    }

    private void hardLink(int parent, Name name, byte[] target, String shown)
            throws LastErrorException, SandboxException {
        if (target == null) {
            throw new ArchiveRefused("hard link \"" + shown + "\" has no target");
        }
        List<Name> to;
        try {
            to = ArchivePath.parse(target, "hard link target");
        } catch (ArchiveRefused r) {
            throw new ArchiveRefused("hard link \"" + shown + "\" points outside the archive ("
                    + r.getMessage().substring(r.getMessage().indexOf(": ") + 2) + ")");
        }
        if (to.isEmpty()) {
            throw new ArchiveRefused("hard link \"" + shown + "\" points at the archive's top directory");
        }
        int toParent;
        try {
            toParent = walk(stagingFd, to.subList(0, to.size() - 1), false);
        } catch (LastErrorException x) {
            throw notExtracted(shown, target);
        }
        try {
            Posix.C.linkat(toParent, to.get(to.size() - 1).cString(), parent, name.cString(), 0);
        } catch (LastErrorException x) {
            if (x.getErrorCode() == Posix.ENOENT) {
                throw notExtracted(shown, target);
            }
            if (x.getErrorCode() == Posix.EPERM) {
                throw new ArchiveRefused("hard link \"" + shown + "\" points at a directory");
            }
            throw duplicateOr(x, shown);
        } finally {
            if (toParent != stagingFd) {
                Posix.closeQuietly(toParent);
            }
        }
    }

    private static ArchiveRefused notExtracted(String shown, byte[] target) {
        return new ArchiveRefused("hard link \"" + shown + "\" points at \"" + Utf8.lossy(target)
                + "\", which no earlier entry of the archive made");
    }

    private static void setTimes(int parent, Name name, TarArchiveEntry e) throws LastErrorException {
        java.time.Instant t = e.getLastModifiedTime().toInstant();
        long[] times = {t.getEpochSecond(), t.getNano(), t.getEpochSecond(), t.getNano()};
        Posix.C.utimensat(parent, name.cString(), times, Posix.AT_SYMLINK_NOFOLLOW);
    }

    private static SandboxException duplicateOr(LastErrorException x, String shown) {
        if (x.getErrorCode() == Posix.EEXIST) {
            return new ArchiveRefused("entry \"" + shown + "\" appears twice or collides with an earlier one");
        }
        return SandboxRoot.map(x);
    }

    /** The directory holding the entry, made (0755) where the archive did not list it. */
    private int parent(List<Name> path, String shown) throws SandboxException {
        List<Name> dirs = path.subList(0, path.size() - 1);
        if (dirs.equals(cachedParent)) {
            return cachedFd;
        }
        int fd;
        try {
            fd = walk(stagingFd, dirs, true);
        } catch (LastErrorException x) {
            int errno = x.getErrorCode();
            if (errno == Posix.ELOOP || errno == Posix.ENOTDIR) {
                throw new ArchiveRefused(
                        "entry \"" + shown + "\" would be written through a symlink or a non-directory");
            }
            throw SandboxRoot.map(x);
        }
        closeUnlessStart(cachedFd, stagingFd);
        cachedParent = List.copyOf(dirs);
        cachedFd = fd;
        return fd;
    }

    /**
     * Walks {@code dirs} down from {@code start}, never through a symlink.
     *
     * @return a descriptor of the last (the caller's to close unless it is {@code start})
     */
    private int walk(int start, List<Name> dirs, boolean create) throws LastErrorException, SandboxException {
        int fd = start;
        for (Name d : dirs) {
            int next;
            try {
                next = Posix.openat(fd, d, Posix.O_PATH | Posix.O_NOFOLLOW | Posix.O_DIRECTORY);
            } catch (LastErrorException x) {
                if (!create || x.getErrorCode() != Posix.ENOENT) {
                    closeUnlessStart(fd, start);
                    throw x;
                }
                try {
                    Posix.C.mkdirat(fd, d.cString(), 0755);
                    owner.applyAt(fd, d);
                    if (++entries > limits.maxEntries()) {
                        throw new ArchiveRefused(
                                "more than " + limits.maxEntries() + " entries (--archive-max-entries)");
                    }
                    next = Posix.openat(fd, d, Posix.O_PATH | Posix.O_NOFOLLOW | Posix.O_DIRECTORY);
                } finally {
                    closeUnlessStart(fd, start);
                }
                fd = next;
                continue;
            }
            closeUnlessStart(fd, start);
            fd = next;
        }
        return fd;
    }

    private static void closeUnlessStart(int fd, int start) {
        if (fd != start) {
            Posix.closeQuietly(fd);
        }
    }

    private void applyDeferredModes() throws LastErrorException, SandboxException {
        for (int i = deferred.size() - 1; i >= 0; i--) { // deepest last-made first
            DeferredMode d = deferred.get(i);
            if (d.path().isEmpty()) {
                Posix.chmod(stagingFd, d.mode());
                continue;
            }
            int parent = walk(stagingFd, d.path().subList(0, d.path().size() - 1), false);
            try {
                chmodAt(parent, d.path().get(d.path().size() - 1), d.mode());
            } finally {
                closeUnlessStart(parent, stagingFd);
            }
        }
    }
}
