package io.sandboxd.daemon.process.os;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

/**
 * The libc calls of the process core that the JDK does not offer (raw fd I/O, epoll, pidfd,
 * waitpid, group signals, PTY window size), bound with JNA direct mapping: a direct call costs
 * about as much as a JNI call, where an interface-mapped call goes through a reflective proxy.
 * errno is read with {@link #errno()} right after a call on the same thread (JNA preserves it per
 * thread). JNA is loaded on first use.
 */
public final class NativeIo {
    public static final int SIGKILL = 9;
    public static final int SIGTERM = 15;

    static final int EPERM = 1;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    static final int ENOSYS = 38;

    static final short POLLIN = 0x001;
    public static final short POLLOUT = 0x004;

    static final int O_RDWR = 02;
    static final int O_NOCTTY = 0400;

    static final int O_NONBLOCK = 04000;
    static final int O_CLOEXEC = 02000000;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;

    static final int EPOLLIN = 0x001;
    static final int EPOLLONESHOT = 1 << 30;
    static final int EPOLL_CTL_ADD = 1;
    static final int EPOLL_CTL_DEL = 2;
    static final int EPOLL_CTL_MOD = 3;
    /** struct epoll_event is packed on x86-64: u32 events, then the 64-bit data union. */
    static final int EPOLL_EVENT_SIZE = 12;

    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;

    static final int WNOHANG = 1;

    /** sysconf names (glibc, Linux). */
    static final int SC_CLK_TCK = 2;

    static final int SC_PAGESIZE = 30;

    private static final long SYS_PIDFD_OPEN = 434;
    private static final long TIOCSWINSZ = 0x5414;

    static {
        Native.register(NativeIo.class, NativeLibrary.getInstance("c"));
    }

    private NativeIo() {}

    static native long sysconf(int name);

    /** {@code buf} is a native address ({@code Pointer.nativeValue}): no Pointer object per call. */
    public static native long read(int fd, long buf, long count);

    public static native long write(int fd, long buf, long count);

    /** PTY stdin from a heap array (JNA copies the array). */
    public static native long write(int fd, byte[] buf, long count);

    public static native int close(int fd);

    static native int open(String path, int flags);

    /** struct pollfd {int fd; short events; short revents;} laid out as int pairs. */
    public static native int poll(int[] fds, long nfds, int timeoutMillis);

    static native int kill(int pid, int sig);

    static native int ioctl(int fd, long request, short[] winsize);

    static native int pipe2(int[] fds, int flags);

    static native int fchown(int fd, int uid, int gid);

    public static native int fcntl(int fd, int cmd, int arg);

    static native int epoll_create1(int flags);

    static native int epoll_ctl(int epfd, int op, int fd, Pointer event);

    static native int epoll_wait(int epfd, Pointer events, int maxEvents, int timeoutMillis);

    static native int eventfd(int initval, int flags);

    static native int waitpid(int pid, int[] status, int options);

    static native long syscall(long number, long arg1, long arg2);

    /** struct rlimit on LP64: rlim_cur, rlim_max. */
    static native int getrlimit(int resource, long[] rlimit);

    private static final int RLIMIT_STACK = 3;

    static long pageSize() {
        long p = sysconf(SC_PAGESIZE);
        return p > 0 ? p : 4096;
    }

    /** The soft stack limit in bytes; negative when unlimited (RLIM_INFINITY is all ones). */
    static long stackLimit() {
        long[] r = new long[2];
        return getrlimit(RLIMIT_STACK, r) == 0 ? r[0] : -1;
    }

    public static int errno() {
        return Native.getLastError();
    }

    /** @return a pidfd for {@code pid}, or -errno (ENOSYS on kernels before 5.3, EPERM under some seccomp profiles) */
    static int pidfdOpen(long pid) {
        long fd = syscall(SYS_PIDFD_OPEN, pid, 0);
        return fd >= 0 ? (int) fd : -errno();
    }

    /** Signals every member of a process group; ESRCH (group already gone) is not an error. */
    public static boolean killGroup(long pgid, int sig) {
        if (pgid <= 1) {
            throw new IllegalArgumentException("refusing to signal group " + pgid);
        }
        return kill((int) -pgid, sig) == 0;
    }

    public static boolean killPid(long pid, int sig) {
        if (pid <= 1) {
            throw new IllegalArgumentException("refusing to signal pid " + pid);
        }
        return kill((int) pid, sig) == 0;
    }

    /** TIOCSWINSZ on a PTY master; the kernel sends SIGWINCH to the foreground group. */
    static void setWindowSize(int masterFd, int cols, int rows) throws java.io.IOException {
        short[] ws = {(short) rows, (short) cols, 0, 0};
        if (ioctl(masterFd, TIOCSWINSZ, ws) != 0) {
            throw new java.io.IOException("TIOCSWINSZ failed: errno " + errno());
        }
    }

    public static void setNonBlocking(int fd) throws java.io.IOException {
        int flags = fcntl(fd, F_GETFL, 0);
        if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
            throw new java.io.IOException("fcntl(O_NONBLOCK) failed: errno " + errno());
        }
    }

    /** Decodes a wait status: the exit code, or 128+N for death by signal N. */
    static int exitCodeOf(int status) {
        int sig = status & 0x7f;
        if (sig == 0) {
            return (status >> 8) & 0xff;
        }
        return 128 + sig;
    }
}
