package io.sandboxd.daemon.process;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * The few libc calls the JDK does not offer: group signals, and raw fd I/O on a PTY master
 * (poll with a wake-up pipe, so a reader can be stopped; read until EIO, so a PTY's tail is never
 * lost). JNA is loaded on first use, so a daemon that never signals pays nothing.
 */
final class Posix {
    static final int SIGINT = 2;
    static final int SIGKILL = 9;
    static final int SIGTERM = 15;

    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EAGAIN = 11;
    static final int ESRCH = 3;

    static final short POLLIN = 0x001;
    static final short POLLOUT = 0x004;
    static final short POLLERR = 0x008;
    static final short POLLHUP = 0x010;

    static final int O_RDWR = 02;
    static final int O_NOCTTY = 0400;
    static final int O_NONBLOCK = 04000;
    static final int O_CLOEXEC = 02000000;

    private static final long TIOCSWINSZ = 0x5414;

    private Posix() {
    }

    interface LibC extends Library {
        int kill(int pid, int sig);

        long read(int fd, byte[] buf, long count);

        long write(int fd, byte[] buf, long count);

        /** struct pollfd {int fd; short events; short revents;} laid out as int pairs. */
        int poll(int[] fds, long nfds, int timeoutMillis);

        int pipe2(int[] fds, int flags);

        int open(String path, int flags);

        int close(int fd);

        int ioctl(int fd, long request, short[] winsize);
    }

    private static final class Holder {
        static final LibC C = Native.load("c", LibC.class);
    }

    static LibC c() {
        return Holder.C;
    }

    static int errno() {
        return Native.getLastError();
    }

    /** Signals every member of a process group; ESRCH (group already gone) is not an error. */
    static boolean killGroup(long pgid, int sig) {
        if (pgid <= 1) {
            throw new IllegalArgumentException("refusing to signal group " + pgid);
        }
        return c().kill((int) -pgid, sig) == 0;
    }

    static boolean killPid(long pid, int sig) {
        if (pid <= 1) {
            throw new IllegalArgumentException("refusing to signal pid " + pid);
        }
        return c().kill((int) pid, sig) == 0;
    }

    /** TIOCSWINSZ on a PTY master; the kernel sends SIGWINCH to the foreground group. */
    static void setWindowSize(int masterFd, TerminalSize size) throws java.io.IOException {
        short[] ws = {(short) size.rows(), (short) size.cols(), 0, 0};
        if (c().ioctl(masterFd, TIOCSWINSZ, ws) != 0) {
            throw new java.io.IOException("TIOCSWINSZ failed: errno " + errno());
        }
    }
}
