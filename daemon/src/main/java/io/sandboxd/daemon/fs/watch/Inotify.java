package io.sandboxd.daemon.fs.watch;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The daemon's one inotify instance and the eventfd that wakes its reader, through JNA direct
 * mapping like the rest of the daemon's libc calls (a plain JNI call per syscall). One instance
 * serves every watch: the kernel gives one watch descriptor per directory inode per instance,
 * which is what lets watches of overlapping trees share their kernel watches, and it costs one
 * of the user's {@code fs.inotify.max_user_instances} (128 by default) instead of one per client.
 */
final class Inotify implements AutoCloseable {
    static final int IN_ACCESS = 0x1;
    static final int IN_MODIFY = 0x2;
    static final int IN_ATTRIB = 0x4;
    static final int IN_CLOSE_WRITE = 0x8;
    static final int IN_MOVED_FROM = 0x40;
    static final int IN_MOVED_TO = 0x80;
    static final int IN_CREATE = 0x100;
    static final int IN_DELETE = 0x200;
    static final int IN_DELETE_SELF = 0x400;
    static final int IN_MOVE_SELF = 0x800;
    static final int IN_UNMOUNT = 0x2000;
    static final int IN_Q_OVERFLOW = 0x4000;
    static final int IN_IGNORED = 0x8000;
    static final int IN_ONLYDIR = 0x01000000;
    static final int IN_EXCL_UNLINK = 0x04000000;
    static final int IN_ISDIR = 0x40000000;

    /** What a watched directory reports: everything about its entries, and its own end. */
    static final int DIRECTORY_MASK = IN_MODIFY
            | IN_ATTRIB
            | IN_CLOSE_WRITE
            | IN_MOVED_FROM
            | IN_MOVED_TO
            | IN_CREATE
            | IN_DELETE
            | IN_DELETE_SELF
            | IN_MOVE_SELF
            | IN_ONLYDIR
            | IN_EXCL_UNLINK;

    private static final int IN_NONBLOCK = 04000;
    private static final int IN_CLOEXEC = 02000000;
    private static final short POLLIN = 0x1;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int ENOENT = 2;
    static final int ENOTDIR = 20;
    static final int ENOSPC = 28;
    static final int EMFILE = 24;
    static final int EACCES = 13;
    private static final long FIONREAD = 0x541B;

    static {
        Native.register(Inotify.class, NativeLibrary.getInstance("c"));
    }

    private static native int inotify_init1(int flags);

    private static native int inotify_add_watch(int fd, byte[] path, int mask);

    private static native int inotify_rm_watch(int fd, int wd);

    private static native long read(int fd, long buf, long count);

    private static native long write(int fd, long buf, long count);

    private static native int close(int fd);

    private static native int poll(int[] fds, long nfds, int timeoutMillis);

    private static native int eventfd(int initval, int flags);

    private static native int ioctl(int fd, long request, int[] out);

    private final int fd;
    private final int wakeFd;
    private final int[] pollFds = new int[4];
    private final Memory wakeBuf = new Memory(8);

    private Inotify(int fd, int wakeFd) {
        this.fd = fd;
        this.wakeFd = wakeFd;
    }

    /** @throws WatchLimitException when the user's inotify instances are used up */
    static Inotify open() throws WatchLimitException, IOException {
        int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (fd < 0) {
            int errno = Native.getLastError();
            if (errno == EMFILE) {
                throw new WatchLimitException(
                        "fs.inotify.max_user_instances",
                        "the kernel's inotify instance limit fs.inotify.max_user_instances ("
                                + kernelLimit("max_user_instances") + ") is reached");
            }
            throw new IOException("inotify_init1 failed: errno " + errno);
        }
        int wake = eventfd(0, IN_NONBLOCK | IN_CLOEXEC);
        if (wake < 0) {
            close(fd);
            throw new IOException("eventfd failed: errno " + Native.getLastError());
        }
        return new Inotify(fd, wake);
    }

    /**
     * Watches the directory {@code dirFd} designates (an {@code O_PATH} descriptor: the kernel
     * follows {@code /proc/self/fd/N} to that very inode, so no name is looked up twice).
     *
     * @return the watch descriptor (the same one again for a directory already watched), or
     *     {@code -errno}
     */
    int addWatch(int dirFd) {
        byte[] path = ("/proc/self/fd/" + dirFd + "\0").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int wd = inotify_add_watch(fd, path, DIRECTORY_MASK);
        return wd >= 0 ? wd : -Native.getLastError();
    }

    void removeWatch(int wd) {
        inotify_rm_watch(fd, wd); // EINVAL when the kernel already dropped it: nothing to do
    }

    /**
     * Waits until events are queued, {@link #wake()} is called, or the timeout passes.
     *
     * @param timeoutMillis -1: no timeout
     * @return true when events are queued
     */
    boolean await(int timeoutMillis) {
        pollFds[0] = fd;
        pollFds[1] = POLLIN;
        pollFds[2] = wakeFd;
        pollFds[3] = POLLIN;
        int n = poll(pollFds, 2, timeoutMillis);
        if (n <= 0) {
            return false;
        }
        if ((pollFds[3] >>> 16) != 0) {
            read(wakeFd, Pointer.nativeValue(wakeBuf), 8);
        }
        return (pollFds[1] >>> 16) != 0;
    }

    /** Makes a pending or the next {@link #await} return at once; any thread. */
    void wake() {
        wakeBuf.setLong(0, 1);
        write(wakeFd, Pointer.nativeValue(wakeBuf), 8);
    }

    /** @return bytes read into {@code buf}, 0 when nothing is queued */
    int read(Memory buf) throws IOException {
        while (true) {
            long n = read(fd, Pointer.nativeValue(buf), buf.size());
            if (n >= 0) {
                return (int) n;
            }
            int errno = Native.getLastError();
            if (errno == EAGAIN) {
                return 0;
            }
            if (errno != EINTR) {
                throw new IOException("read(inotify) failed: errno " + errno);
            }
        }
    }

    /** Bytes of events queued in the kernel right now. */
    int queuedBytes() {
        int[] out = new int[1];
        return ioctl(fd, FIONREAD, out) == 0 ? out[0] : 0;
    }

    /**
     * The value of {@code /proc/sys/fs/inotify/<name>}, or "?" when it cannot be read. Read through a
     * buffer in one call: an integer sysctl answers nothing to a read past offset 0, and
     * {@code Files.readString} reads a file whose size says 0 one byte first, so it gave the first
     * digit alone ("1" for 192543).
     */
    static String kernelLimit(String name) {
        try {
            return Files.readAllLines(Path.of("/proc/sys/fs/inotify", name))
                    .get(0)
                    .strip();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    @Override
    public void close() {
        close(wakeFd);
        close(fd);
    }
}
