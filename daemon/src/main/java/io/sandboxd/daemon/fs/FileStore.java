package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;

/**
 * The filesystem core of the REST API (runtime-contract §2.3–2.5): read, list, atomic write, delete.
 * Knows nothing about HTTP. Every path goes through {@link SandboxRoot#resolve}, and every
 * operation after resolution is relative to the descriptors it returned.
 */
public final class FileStore {
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;

    private final SandboxRoot root;
    private final DirectBuffers buffers;
    /** Distinguishes our in-flight temps from a crashed predecessor's. */
    private final String instanceId;

    private final Object[] renameLocks = new Object[64];
    private final DirectorySync directorySync = new DirectorySync();

    /** @param buffers what downloads are read into (see {@link OpenFile#sendTo}) */
    public FileStore(SandboxRoot root, DirectBuffers buffers) {
        this.root = root;
        this.buffers = buffers;
        this.instanceId = TempNames.INSTANCE_ID;
        for (int i = 0; i < renameLocks.length; i++) {
            renameLocks[i] = new Object();
        }
    }

    // ---------------------------------------------------------------- read / list

    /** @param clientPath the decoded client path, as bytes (any name a process can create) */
    public ReadResult read(byte[] clientPath) throws SandboxException {
        UserPath path = root.parse(clientPath);
        for (int attempt = 0; attempt < 4; attempt++) {
            try (SandboxRoot.Resolved r = root.resolve(path, SandboxRoot.Mode.FOLLOW)) {
                if (!r.exists()) {
                    throw SandboxRoot.notFound();
                }
                if (r.isDirectoryTarget()) {
                    return new ReadResult.Directory(DirectoryListing.read(root, r));
                }
                ReadResult.File f = openRegular(r);
                if (f != null) {
                    return f;
                }
            }
        }
        throw new PathException(PathFailure.CHANGED, "path changed repeatedly during the request");
    }

    /** @return null when the name changed kind under us (retry) */
    private ReadResult.File openRegular(SandboxRoot.Resolved r) throws SandboxException {
        int fd;
        try {
            // O_NONBLOCK: a FIFO must never hang the request
            fd = Posix.openat(r.dirFd(), r.name(), Posix.O_RDONLY | Posix.O_NOFOLLOW | Posix.O_NONBLOCK);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == Posix.ELOOP) {
                return null;
            }
            throw SandboxRoot.map(e);
        }
        try {
            Posix.Stat st = Posix.stat(fd);
            if (st.type() == S_IFDIR) {
                return null;
            }
            if (st.type() != S_IFREG) {
                throw new PathException(PathFailure.NOT_REGULAR);
            }
            FileChannel ch = FileChannel.open(Posix.fdPath(fd), StandardOpenOption.READ);
            return new ReadResult.File(new OpenFile(ch, info(st), buffers));
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        } catch (NoSuchFileException e) {
            throw SandboxRoot.notFound();
        } catch (IOException e) {
            throw ioError(e, "cannot open file");
        } finally {
            Posix.closeQuietly(fd);
        }
    }

    /** The validator and metadata GET sends for a regular file (stat shows the same ETag). */
    static FileInfo info(Posix.Stat st) {
        return info(st.ino(), st.size(), Instant.ofEpochSecond(st.mtimeSeconds(), st.mtimeNanos()));
    }

    private static FileInfo info(long ino, long size, Instant m) {
        long nanos = m.getEpochSecond() * 1_000_000_000L + m.getNano();
        String etag =
                "\"" + Long.toHexString(ino) + "-" + Long.toHexString(size) + "-" + Long.toHexString(nanos) + "\"";
        return new FileInfo(size, m, etag);
    }

    // ---------------------------------------------------------------- write

    /**
     * Atomic write: temp file in the target's directory, content, fsync, chmod, rename, fsync of
     * the directory. On any failure the temp file is removed and the target is untouched.
     */
    public void write(byte[] clientPath, ContentSource content, WriteOptions options) throws SandboxException {
        UserPath path = root.parse(clientPath);
        if (path.isRoot()) {
            throw isDirectory();
        }
        try (SandboxRoot.Resolved r = root.resolve(path, SandboxRoot.Mode.CREATE_PARENTS)) {
            if (r.isDirectoryTarget()) {
                throw isDirectory();
            }
            checkPreconditions(r, options);
            String tmp = TempNames.next(".tmp");
            int fd;
            try {
                fd = Posix.openat(
                        r.dirFd(), tmp, Posix.O_WRONLY | Posix.O_CREAT | Posix.O_EXCL | Posix.O_NOFOLLOW, 0600);
            } catch (LastErrorException e) {
                throw SandboxRoot.map(e);
            }
            boolean renamed = false;
            try {
                root.owner().apply(fd);
                MessageDigest md = options.sha256().isPresent() ? sha256() : null;
                WritebackPacer writeback = WritebackPacer.forFd(fd);
                try (FileChannel ch = FileChannel.open(Posix.fdPath(fd), StandardOpenOption.WRITE)) {
                    content.writeTo(buf -> {
                        if (md != null) {
                            md.update(buf.duplicate());
                        }
                        int n = buf.remaining();
                        while (buf.hasRemaining()) {
                            ch.write(buf);
                        }
                        writeback.wrote(n);
                    });
                    ch.force(true);
                }
                if (md != null
                        && !MessageDigest.isEqual(md.digest(), options.sha256().get())) {
                    throw new SandboxException(
                            ErrorKind.INVALID_ARGUMENT,
                            "content digest mismatch: the body's SHA-256 differs from the one declared; nothing was written");
                }
                Posix.C.fchmod(fd, options.mode() & 0777);
                synchronized (renameLocks[Math.floorMod(r.realSegments().hashCode(), renameLocks.length)]) {
                    checkPreconditions(r, options);
                    Posix.C.renameat(
                            r.dirFd(), Posix.cstr(tmp), r.dirFd(), r.name().cString());
                    renamed = true;
                }
                fsyncDirectoryAfterRename(r.dirFd());
            } catch (LastErrorException e) {
                throw SandboxRoot.map(e);
            } catch (IOException e) {
                throw ioError(e, "write failed");
            } finally {
                Posix.closeQuietly(fd);
                if (!renamed) {
                    unlinkQuietly(r.dirFd(), tmp);
                }
            }
        }
    }

    private static PathException isDirectory() {
        return new PathException(PathFailure.IS_DIRECTORY);
    }

    private void checkPreconditions(SandboxRoot.Resolved r, WriteOptions o) throws SandboxException {
        if (o.ifMatch().isEmpty() && !o.ifNoneMatchAny()) {
            return;
        }
        FileInfo current = null;
        try {
            Posix.Stat st = Posix.statAt(r.dirFd(), r.name());
            if (st.type() == S_IFREG) {
                current = info(st);
            }
        } catch (LastErrorException e) {
            if (e.getErrorCode() != Posix.ENOENT) {
                throw SandboxRoot.map(e);
            }
        }
        if (o.ifNoneMatchAny() && current != null) {
            throw new SandboxException(ErrorKind.PRECONDITION_FAILED, "file already exists (If-None-Match: *)");
        }
        if (o.ifMatch().isPresent()
                && (current == null || !Etags.matches(o.ifMatch().get(), current.etag()))) {
            throw new SandboxException(ErrorKind.PRECONDITION_FAILED, "file changed or is missing (If-Match)");
        }
    }

    /**
     * The rename is durable once the directory is fsynced. Concurrent uploads into the same
     * directory share one fsync ({@link DirectorySync}): each still waits for an fsync that
     * started after its own rename.
     */
    private void fsyncDirectoryAfterRename(int dirFd) {
        DirectorySync.Key key;
        try {
            Posix.Stat st = Posix.stat(dirFd);
            key = new DirectorySync.Key(st.dev(), st.ino());
        } catch (LastErrorException e) {
            Durability.syncDirectory(dirFd); // cannot identify the directory: sync it alone
            return;
        }
        directorySync.syncAfterRename(key, () -> Durability.syncDirectory(dirFd));
    }

    // ---------------------------------------------------------------- delete

    public void delete(byte[] clientPath, boolean recursive) throws SandboxException {
        UserPath path = root.parse(clientPath);
        try (SandboxRoot.Resolved r = root.resolve(path, SandboxRoot.Mode.NOFOLLOW_LAST)) {
            if (r.isDirectoryTarget()) {
                if (!recursive) {
                    throw new SandboxException(
                            ErrorKind.CONFLICT,
                            "cannot delete the sandbox root; pass recursive=true to clear its contents");
                }
                TreeRemover.removeContents(r.dirFd());
                return;
            }
            try {
                if (Posix.statAt(r.dirFd(), r.name()).type() != S_IFDIR) {
                    Posix.unlinkat(r.dirFd(), r.name(), 0);
                } else if (recursive) {
                    removeDirectory(r.dirFd(), r.name());
                } else {
                    Posix.unlinkat(r.dirFd(), r.name(), Posix.AT_REMOVEDIR);
                }
            } catch (LastErrorException e) {
                throw SandboxRoot.map(e);
            }
        }
    }

    /** Empties the directory, then removes it; a few tries if something keeps filling it meanwhile. */
    private static void removeDirectory(int parentFd, Name name) throws SandboxException, LastErrorException {
        for (int attempt = 0; ; attempt++) {
            int fd = DirectoryReader.openChild(parentFd, name);
            try {
                TreeRemover.removeContents(fd);
            } finally {
                Posix.closeQuietly(fd);
            }
            try {
                Posix.unlinkat(parentFd, name, Posix.AT_REMOVEDIR);
                return;
            } catch (LastErrorException e) {
                if (e.getErrorCode() != Posix.ENOTEMPTY || attempt >= 3) {
                    throw e;
                }
            }
        }
    }

    private static void unlinkQuietly(int dirFd, String name) {
        try {
            Posix.C.unlinkat(dirFd, Posix.cstr(name), 0);
        } catch (LastErrorException ignored) {
            // already gone
        }
    }

    // ---------------------------------------------------------------- stale temps

    /**
     * Removes upload temp files a previous daemon left behind (crash, kill -9), walking the tree
     * through descriptors without following links. Temps of this instance are kept.
     *
     * @return how many were removed
     */
    public int removeStaleTemps() {
        return StaleTempSweep.run(root.rootFd(), instanceId);
    }

    // ---------------------------------------------------------------- helpers

    /**
     * The JDK reports these only as an IOException's text (no errno): matched here, once, and
     * turned into the same errors an errno would give.
     */
    static SandboxException ioError(IOException e, String what) {
        String msg = String.valueOf(e.getMessage());
        if (e instanceof java.nio.file.AccessDeniedException
                || msg.contains("Permission denied")
                || msg.contains("Operation not permitted")) {
            return new PathException(PathFailure.ACCESS_DENIED);
        }
        if (msg.contains("No space left") || msg.contains("Disk quota exceeded")) {
            return new PathException(PathFailure.NO_SPACE);
        }
        if (msg.contains("Read-only file system")) {
            return new PathException(PathFailure.READ_ONLY);
        }
        if (msg.contains("File name too long")) {
            return new PathException(PathFailure.NAME_TOO_LONG);
        }
        if (msg.contains("Not a directory")) {
            return new PathException(PathFailure.NOT_FOUND);
        }
        // the IOException text may hold descriptor paths; never echo it
        return new SandboxException(
                ErrorKind.INTERNAL, what + " (" + e.getClass().getSimpleName() + ")", e);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
