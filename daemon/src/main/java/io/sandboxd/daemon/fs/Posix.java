package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The few *at(2) calls Java NIO lacks, so that every path step is taken relative to a directory
 * descriptor we hold and never re-walks a name a sandboxed process could swap for a symlink.
 * File content itself is still read and written with NIO, through {@code /proc/self/fd/N}: the
 * kernel resolves that magic link to the very inode we opened, not to a name.
 */
final class Posix {
    interface LibC extends Library {
        int openat(int dirfd, byte[] path, int flags, int mode) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        int mkdirat(int dirfd, byte[] path, int mode) throws LastErrorException;

        int unlinkat(int dirfd, byte[] path, int flags) throws LastErrorException;

        int renameat(int olddirfd, byte[] oldpath, int newdirfd, byte[] newpath) throws LastErrorException;

        long readlinkat(int dirfd, byte[] path, byte[] buf, long bufsiz) throws LastErrorException;

        int fchmod(int fd, int mode) throws LastErrorException;
    }

    static final LibC C = Native.load("c", LibC.class);

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
    static final int AT_REMOVEDIR = 0x200;

    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int ENXIO = 6;
    static final int EACCES = 13;
    static final int EEXIST = 17;
    static final int ENOTDIR = 20;
    static final int EISDIR = 21;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int EROFS = 30;
    static final int ENAMETOOLONG = 36;
    static final int ENOTEMPTY = 39;
    static final int ELOOP = 40;
    static final int EDQUOT = 122;

    private Posix() {
    }

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

    static void closeQuietly(int fd) {
        if (fd >= 0) {
            try {
                C.close(fd);
            } catch (LastErrorException ignored) {
                // nothing useful to do: the descriptor is gone either way
            }
        }
    }

    /** @return the link's target, or null when {@code name} is not a symbolic link */
    static String readlinkat(int dirfd, String name) throws LastErrorException {
        byte[] buf = new byte[4096];
        long n;
        try {
            n = C.readlinkat(dirfd, cstr(name), buf, buf.length);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == EINVAL) {
                return null;
            }
            throw e;
        }
        return new String(buf, 0, (int) n, StandardCharsets.UTF_8);
    }

    /** A path the kernel resolves to the inode behind {@code fd}, plus an optional child name. */
    static Path fdPath(int fd) {
        return Path.of("/proc/self/fd/" + fd);
    }

    static Path fdPath(int fd, String child) {
        return Path.of("/proc/self/fd/" + fd, child);
    }
}
