package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The few *at(2) calls Java NIO lacks, so that every path step is taken relative to a directory
 * descriptor we hold and never re-walks a name a sandboxed process could swap for a symlink.
 * File content itself is still read and written with NIO, through {@code /proc/self/fd/N}: the
 * kernel resolves that magic link to the very inode we opened, not to a name.
 */
final class Posix {
    /**
     * libc through JNA direct mapping: a plain JNI call, several times cheaper than an interface
     * proxy (reflection and argument conversion on every call), which showed in profiles of small
     * file requests. Errors still arrive as {@link LastErrorException} with errno.
     */
    static final class C {
        static {
            Native.register("c");
        }

        private C() {}

        static native int openat(int dirfd, byte[] path, int flags, int mode) throws LastErrorException;

        static native int close(int fd) throws LastErrorException;

        static native int mkdirat(int dirfd, byte[] path, int mode) throws LastErrorException;

        static native int unlinkat(int dirfd, byte[] path, int flags) throws LastErrorException;

        static native int renameat(int olddirfd, byte[] oldpath, int newdirfd, byte[] newpath)
                throws LastErrorException;

        static native long readlinkat(int dirfd, byte[] path, byte[] buf, long bufsiz) throws LastErrorException;

        static native int fchmod(int fd, int mode) throws LastErrorException;

        static native int statx(int dirfd, byte[] path, int flags, int mask, byte[] statxbuf) throws LastErrorException;

        static native int sync_file_range(int fd, long offset, long nbytes, int flags) throws LastErrorException;

        /** glibc 2.30+; {@code buf} is a native address. */
        static native long getdents64(int fd, long buf, long count) throws LastErrorException;

        static native long lseek(int fd, long offset, int whence) throws LastErrorException;

        static native int fchown(int fd, int uid, int gid) throws LastErrorException;

        static native int fchownat(int dirfd, byte[] path, int uid, int gid, int flags) throws LastErrorException;

        /** By path: used only on {@code /proc/self/fd/N} of an O_PATH descriptor (see {@link #chmod(int, int)}). */
        static native int chmod(byte[] path, int mode) throws LastErrorException;

        static native int symlinkat(byte[] target, int newdirfd, byte[] linkpath) throws LastErrorException;

        static native int linkat(int olddirfd, byte[] oldpath, int newdirfd, byte[] newpath, int flags)
                throws LastErrorException;

        static native int utimensat(int dirfd, byte[] path, long[] times, int flags) throws LastErrorException;

        /**
         * {@code buf} is a native address: JNA copies a {@code byte[]} argument whole, both ways,
         * on every call (a 128 KiB buffer for a 4 KiB file was 256 KiB of copying).
         */
        static native long write(int fd, long buf, long count) throws LastErrorException;

        /** {@code buf} is a native address (see {@link #write}). */
        static native long read(int fd, long buf, long count) throws LastErrorException;

        static native int syncfs(int fd) throws LastErrorException;
    }

    /**
     * {@code renameat2(2)} (glibc 2.28+) on its own: a libc without it must not take the other
     * calls down with it ({@link #renameat2Available}).
     */
    static final class Rename2 {
        static {
            Native.register("c");
        }

        private Rename2() {}

        static native int renameat2(int olddirfd, byte[] oldpath, int newdirfd, byte[] newpath, int flags)
                throws LastErrorException;
    }

    static final int RENAME_NOREPLACE = 1;
    static final int RENAME_EXCHANGE = 2;

    private static final boolean RENAMEAT2 = loads(() -> Rename2.class.getName());

    /** False when this libc has no renameat2: callers then fall back to what they can guarantee without it. */
    static boolean renameat2Available() {
        return RENAMEAT2;
    }

    private static boolean loads(java.util.function.Supplier<String> touch) {
        try {
            Class.forName(touch.get(), true, Posix.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * chmod of the inode an O_PATH descriptor holds (fchmod refuses O_PATH ones): through its
     * {@code /proc/self/fd/N} link, which the kernel resolves to that very inode, not to a name.
     */
    static void chmod(int pathFd, int mode) throws LastErrorException {
        C.chmod(cstr("/proc/self/fd/" + pathFd), mode);
    }

    /**
     * The calls a tree walk makes per entry, returning -1 and leaving errno ({@link #errno()})
     * instead of throwing: an expected failure (ENOTEMPTY from rmdir on the way down) would
     * otherwise cost a stack-walking exception per directory level (measured: two 100,000-deep
     * deletes on ext4 took 37 s with them).
     */
    static final class Raw {
        static {
            Native.register("c");
        }

        private Raw() {}

        static native int openat(int dirfd, byte[] path, int flags, int mode);

        static native int unlinkat(int dirfd, byte[] path, int flags);
    }

    static int errno() {
        return Native.getLastError();
    }

    static final int SYNC_FILE_RANGE_WRITE = 2;

    private static final boolean ARM = System.getProperty("os.arch", "").startsWith("aarch64")
            || System.getProperty("os.arch", "").startsWith("arm");

    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    static final int O_NONBLOCK = 04000;
    static final int O_DIRECTORY = ARM ? 040000 : 0200000;
    static final int O_NOFOLLOW = ARM ? 0100000 : 0400000;
    static final int O_CLOEXEC = 02000000;
    static final int O_PATH = 010000000;
    /** O_TMPFILE includes O_DIRECTORY, whose value differs on ARM. */
    static final int O_TMPFILE = 020000000 | O_DIRECTORY;

    static final int O_RDWR = 2;
    static final int SEEK_SET = 0;
    static final int AT_REMOVEDIR = 0x200;
    static final int AT_SYMLINK_NOFOLLOW = 0x100;
    static final int AT_EMPTY_PATH = 0x1000;
    static final int STATX_TYPE = 0x1;
    /** type, mode, mtime, ino, size */
    private static final int STATX_FILE_INFO = 0x1 | 0x2 | 0x40 | 0x100 | 0x200;

    private static final byte[] EMPTY_PATH = {0};

    static final int S_IFMT = 0170000;
    static final int S_IFDIR = 0040000;
    static final int S_IFLNK = 0120000;
    /** struct statx is the same on every architecture: 256 bytes, stx_mode a u16 at offset 28. */
    private static final int STATX_SIZE = 256;

    private static final int STX_MODE = 28;
    private static final int STX_INO = 32;
    private static final int STX_SIZE = 40;
    private static final int STX_MTIME = 112;
    private static final int STX_DEV_MAJOR = 136;
    private static final int STX_DEV_MINOR = 140;

    /** What {@link #stat} reports of an open descriptor. */
    record Stat(int mode, long dev, long ino, long size, long mtimeSeconds, int mtimeNanos) {
        int type() {
            return mode & S_IFMT;
        }
    }

    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int ENXIO = 6;
    static final int EACCES = 13;
    static final int EEXIST = 17;
    static final int ENOTDIR = 20;
    static final int EISDIR = 21;
    static final int EINVAL = 22;
    static final int EOPNOTSUPP = 95;
    static final int ENOSPC = 28;
    static final int EROFS = 30;
    static final int ENAMETOOLONG = 36;
    static final int ENOTEMPTY = 39;
    static final int ELOOP = 40;
    static final int EDQUOT = 122;
    static final int EXDEV = 18;
    static final int EBUSY = 16;
    static final int ENOSYS = 38;

    private Posix() {}

    static byte[] cstr(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        byte[] z = new byte[b.length + 1];
        System.arraycopy(b, 0, z, 0, b.length);
        return z;
    }

    static int openat(int dirfd, String name, int flags) throws LastErrorException {
        return C.openat(dirfd, cstr(name), flags | O_CLOEXEC, 0);
    }

    static int openat(int dirfd, String name, int flags, int mode) throws LastErrorException {
        return C.openat(dirfd, cstr(name), flags | O_CLOEXEC, mode);
    }

    static int openat(int dirfd, Name name, int flags) throws LastErrorException {
        return C.openat(dirfd, name.cString(), flags | O_CLOEXEC, 0);
    }

    static int openat(int dirfd, Name name, int flags, int mode) throws LastErrorException {
        return C.openat(dirfd, name.cString(), flags | O_CLOEXEC, mode);
    }

    static void closeQuietly(int fd) {
        if (fd >= 0) {
            try {
                C.close(fd);
            } catch (LastErrorException ignored) {
                // nothing useful to do: the descriptor is gone either way
            }
        }
    }

    /**
     * The file type bits ({@code S_IFMT}) of {@code name} in {@code dirfd}, not following a final
     * symlink; ENOENT and other errors as {@link LastErrorException}.
     */
    static int typeAt(int dirfd, Name name) throws LastErrorException {
        byte[] buf = new byte[STATX_SIZE];
        C.statx(dirfd, name.cString(), AT_SYMLINK_NOFOLLOW, STATX_TYPE, buf);
        return ByteBuffer.wrap(buf).order(ByteOrder.nativeOrder()).getShort(STX_MODE) & S_IFMT;
    }

    /**
     * fstat of a descriptor (O_PATH ones too) in one direct call, instead of the JDK's stat of
     * {@code /proc/self/fd/N}, which walks procfs and builds a map per call.
     */
    static Stat stat(int fd) throws LastErrorException {
        return statx(fd, EMPTY_PATH, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
    }

    /** {@code name} in {@code dirfd}, never following a final symlink (the link itself is described). */
    static Stat statAt(int dirfd, Name name) throws LastErrorException {
        return statx(dirfd, name.cString(), AT_SYMLINK_NOFOLLOW);
    }

    private static Stat statx(int dirfd, byte[] path, int flags) throws LastErrorException {
        byte[] raw = new byte[STATX_SIZE];
        C.statx(dirfd, path, flags, STATX_FILE_INFO, raw);
        ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder());
        long dev = (b.getInt(STX_DEV_MAJOR) & 0xffffffffL) << 32 | (b.getInt(STX_DEV_MINOR) & 0xffffffffL);
        return new Stat(
                b.getShort(STX_MODE) & 0xffff,
                dev,
                b.getLong(STX_INO),
                b.getLong(STX_SIZE),
                b.getLong(STX_MTIME),
                b.getInt(STX_MTIME + 8));
    }

    /** @return the link's target as bytes, or null when {@code name} is not a symbolic link */
    static byte[] readlinkat(int dirfd, Name name) throws LastErrorException {
        byte[] buf = new byte[4096];
        long n;
        try {
            n = C.readlinkat(dirfd, name.cString(), buf, buf.length);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == EINVAL) {
                return null;
            }
            throw e;
        }
        return java.util.Arrays.copyOf(buf, (int) n);
    }

    static void unlinkat(int dirfd, Name name, int flags) throws LastErrorException {
        C.unlinkat(dirfd, name.cString(), flags);
    }

    /** A path the kernel resolves to the inode behind {@code fd}, plus an optional child name. */
    static Path fdPath(int fd) {
        return Path.of("/proc/self/fd/" + fd);
    }
}
