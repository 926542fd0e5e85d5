package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.zip.Deflater;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipParameters;

/**
 * Whole directories in one request (runtime-contract §4.3): a directory streamed out as a tar
 * ({@link TarWriter}), and a tar (or tar.gz) put in all or nothing. An upload is extracted
 * ({@link TarExtractor}) into a staging directory beside the target, named as an in-flight
 * upload (never listed, never addressable, swept at the next start should the daemon die),
 * synced (unless asked not to), and renamed into place only once the whole archive was read and valid: onto a free
 * name with RENAME_NOREPLACE, or, asked to replace, swapped with the existing entry in one
 * RENAME_EXCHANGE, after which the old tree is removed. Anything else (a refused entry, a limit,
 * a cut connection, a full disk) removes the staging directory and leaves the target as it was.
 */
public final class DirectoryArchives {
    /** gzip level of downloads: the fastest, since the network is rarely slower than deflate at 1. */
    static final int GZIP_LEVEL = Deflater.BEST_SPEED;

    private final SandboxRoot root;
    private final ArchiveLimits limits;

    public DirectoryArchives(SandboxRoot root, ArchiveLimits limits) {
        this.root = root;
        this.limits = limits;
    }

    public ArchiveLimits limits() {
        return limits;
    }

    // ---------------------------------------------------------------- download

    /** A directory resolved and held open, ready to stream: errors come before any byte is sent. */
    public static final class Download implements AutoCloseable {
        private final int fd;
        private final List<Name> path;

        private Download(int fd, List<Name> path) {
            this.fd = fd;
            this.path = path;
        }

        /** The directory's real path below the root. */
        public List<Name> path() {
            return path;
        }

        /** Streams the tree; @return the number of entries */
        public long writeTo(OutputStream out, boolean gzip) throws IOException, SandboxException {
            if (!gzip) {
                return new TarWriter().write(fd, out);
            }
            GzipParameters p = new GzipParameters();
            p.setCompressionLevel(GZIP_LEVEL);
            GzipCompressorOutputStream gz = new GzipCompressorOutputStream(out, p);
            long n = new TarWriter().write(fd, gz);
            gz.finish();
            out.flush();
            return n;
        }

        @Override
        public void close() {
            Posix.closeQuietly(fd);
        }
    }

    public Download download(byte[] clientPath) throws SandboxException {
        try (SandboxRoot.Resolved r = root.resolve(clientPath, SandboxRoot.Mode.FOLLOW)) {
            if (!r.exists()) {
                throw SandboxRoot.notFound();
            }
            if (!r.isDirectoryTarget()) {
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "path is not a directory");
            }
            return new Download(DirectoryReader.openSelf(r.dirFd()), r.realSegments());
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        }
    }

    // ---------------------------------------------------------------- upload

    /**
     * Extracts {@code body} (tar, or gzip-compressed tar: told by its first bytes) as the
     * directory {@code clientPath}, whose parent must exist.
     *
     * @param replace whether an existing entry at {@code clientPath} is swapped out for it
     * @param sync whether the tree is made durable before it is placed and the answer given
     *     ({@code syncfs} of its filesystem, then the parent directory's fsync after the rename).
     *     Without, the tree is placed as soon as it is extracted, its data possibly still in the
     *     page cache: a crash of the daemon loses nothing, a crash of the machine can lose the
     *     whole upload or leave files without their content, as after a plain {@code tar -x}.
     *     The sync is most of an upload's cost on a plain disk (45-70 % of {@code tar -x}'s own
     *     time here, issue 19).
     * @return the number of entries extracted
     */
    public long upload(byte[] clientPath, InputStream body, boolean replace, boolean sync) throws SandboxException {
        UserPath path = root.parse(clientPath);
        if (path.isRoot()) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT,
                    "the sandbox root cannot be replaced: upload into a directory below it");
        }
        try (SandboxRoot.Resolved r = root.resolve(path, SandboxRoot.Mode.NOFOLLOW_LAST)) {
            if (!replace && exists(r.dirFd(), r.name())) {
                throw new SandboxException(
                        ErrorKind.CONFLICT, "the target already exists; pass replace=true to swap it for the archive");
            }
            Name staging = Name.of(TempNames.next(".dir"));
            try {
                Posix.C.mkdirat(r.dirFd(), staging.cString(), 0700);
            } catch (LastErrorException e) {
                throw SandboxRoot.map(e);
            }
            boolean placed = false;
            int fd = -1;
            try {
                fd = DirectoryReader.openChild(r.dirFd(), staging);
                root.owner().applyAt(r.dirFd(), staging);
                long entries = new TarExtractor(fd, root.owner(), limits).extract(new TarInput(decompressed(body)));
                if (sync) {
                    Posix.C.syncfs(fd);
                }
                place(r.dirFd(), staging, r.name(), replace);
                placed = true;
                if (sync) {
                    Durability.syncDirectory(r.dirFd());
                }
                return entries;
            } catch (TarInput.RefusedWhileReading e) {
                throw new ArchiveRefused(e.getMessage());
            } catch (IOException e) {
                throw new SandboxException(
                        ErrorKind.INVALID_ARGUMENT, "archive could not be read, nothing was written: " + describe(e));
            } catch (LastErrorException e) {
                throw SandboxRoot.map(e);
            } finally {
                Posix.closeQuietly(fd);
                if (!placed) {
                    removeTree(r.dirFd(), staging);
                }
            }
        }
    }

    /** A reading failure as the client may see it: the reader's words, never a path (they hold none). */
    private static String describe(IOException e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return e.getClass().getSimpleName();
        }
        return m.length() <= 200 ? m : m.substring(0, 200) + "...";
    }

    /** NOFOLLOW_LAST resolution does not look at the last name: whether it is there (a dangling link is). */
    private static boolean exists(int dirFd, Name name) throws SandboxException {
        try {
            Posix.typeAt(dirFd, name);
            return true;
        } catch (LastErrorException e) {
            if (e.getErrorCode() == Posix.ENOENT) {
                return false;
            }
            throw SandboxRoot.map(e);
        }
    }

    /** gzip when it starts like gzip ({@code 1f 8b}), else the stream itself. */
    private static InputStream decompressed(InputStream body) throws IOException {
        BufferedInputStream in = new BufferedInputStream(body, 64 * 1024);
        in.mark(2);
        int a = in.read();
        int b = in.read();
        in.reset();
        if (a == 0x1f && b == 0x8b) {
            return GzipCompressorInputStream.builder()
                    .setInputStream(in)
                    .setDecompressConcatenated(true)
                    .get();
        }
        return in;
    }

    /** Puts the complete staging directory at {@code target}. */
    private static void place(int dirFd, Name staging, Name target, boolean replace) throws SandboxException {
        try {
            try {
                Renames.noReplace(dirFd, staging, dirFd, target);
                return;
            } catch (LastErrorException e) {
                if (e.getErrorCode() != Posix.EEXIST && e.getErrorCode() != Posix.ENOTEMPTY || !replace) {
                    throw e;
                }
            }
            // the target exists and is to be replaced: swap, then the old tree (now under the
            // staging name) goes
            if (!Renames.exchange(dirFd, staging, target)) {
                // no RENAME_EXCHANGE here: the old tree steps aside first (a moment without target)
                Name old = Name.of(TempNames.next(".old"));
                Posix.C.renameat(dirFd, target.cString(), dirFd, old.cString());
                Posix.C.renameat(dirFd, staging.cString(), dirFd, target.cString());
                removeTree(dirFd, old);
                return;
            }
            removeTree(dirFd, staging);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == Posix.EEXIST || e.getErrorCode() == Posix.ENOTEMPTY) {
                throw new SandboxException(
                        ErrorKind.CONFLICT,
                        "the target was created while the archive was uploaded; pass replace=true to swap it");
            }
            throw SandboxRoot.map(e);
        }
    }

    /** Best effort: what stays is a hidden temp the next start sweeps. */
    private static void removeTree(int parentFd, Name name) {
        try {
            int type = Posix.typeAt(parentFd, name);
            if (type != Posix.S_IFDIR) {
                Posix.unlinkat(parentFd, name, 0);
                return;
            }
            int fd = DirectoryReader.openChild(parentFd, name);
            try {
                TreeRemover.removeContents(fd);
            } finally {
                Posix.closeQuietly(fd);
            }
            Posix.unlinkat(parentFd, name, Posix.AT_REMOVEDIR);
        } catch (LastErrorException | PathException e) {
            // left for the sweep
        }
    }
}
