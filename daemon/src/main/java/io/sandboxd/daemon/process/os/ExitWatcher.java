package io.sandboxd.daemon.process.os;

import java.util.concurrent.Executor;
import java.util.function.IntConsumer;

/**
 * Reaps one pipe-mode child and reports its exit code (128+N for death by signal N). A pidfd
 * (Linux 5.3+) on the {@link IoLoop} turns readable when the child exits, so waiting costs no
 * thread; where pidfd_open is refused (older kernels, some seccomp profiles) a pooled thread
 * blocks in waitpid for it instead. Only this class reaps pipe-mode children, always by pid:
 * a waitpid(-1) anywhere would steal pty4j's children.
 */
public final class ExitWatcher implements IoLoop.Handler {
    /** Set to "false" to force the thread fallback (tests). */
    static final String PIDFD_PROPERTY = "sandboxd.pidfd";

    private static volatile boolean pidfdUsable = !"false".equals(System.getProperty(PIDFD_PROPERTY));

    private final IoLoop loop;
    private final int pid;
    private final int pidfd;
    private final IntConsumer onExit;
    private final int[] status = new int[1];

    private ExitWatcher(IoLoop loop, int pid, int pidfd, IntConsumer onExit) {
        this.loop = loop;
        this.pid = pid;
        this.pidfd = pidfd;
        this.onExit = onExit;
    }

    /** Tests: force (false) or allow (true) the thread fallback. */
    static void usePidfd(boolean use) {
        pidfdUsable = use;
    }

    public static void watch(long pid, IoLoop loop, Executor blocking, IntConsumer onExit) {
        int fd = openPidfd(pid);
        if (fd >= 0) {
            loop.register(fd, new ExitWatcher(loop, (int) pid, fd, onExit));
        } else {
            blocking.execute(() -> onExit.accept(blockingWait((int) pid)));
        }
    }

    /** @return a pidfd, or -1 when pidfds are unavailable (remembered once the kernel refuses them) */
    private static int openPidfd(long pid) {
        if (!pidfdUsable) {
            return -1;
        }
        int fd = NativeIo.pidfdOpen(pid);
        if (fd == -NativeIo.ENOSYS || fd == -NativeIo.EPERM) {
            pidfdUsable = false;
        }
        return Math.max(fd, -1);
    }

    @Override
    public void onEvent() {
        int r = NativeIo.waitpid(pid, status, NativeIo.WNOHANG);
        if (r == 0 || (r < 0 && NativeIo.errno() == NativeIo.EINTR)) {
            loop.rearm(pidfd); // spurious: not exited yet
            return;
        }
        loop.closeFd(pidfd);
        onExit.accept(r == pid ? NativeIo.exitCodeOf(status[0]) : -1);
    }

    /**
     * For children another library reaps (pty4j's own reaper thread): runs {@code onExit} on the
     * loop once {@code pid} has exited, without reaping it, so no thread waits while it runs.
     *
     * @return false when pidfds are unavailable; the caller then has to wait some other way
     */
    public static boolean notifyExit(long pid, IoLoop loop, Runnable onExit) {
        int fd = openPidfd(pid);
        if (fd < 0) {
            return false;
        }
        // A pidfd stays readable once its process exited, so one event is all it ever needs.
        loop.register(fd, () -> {
            loop.closeFd(fd);
            onExit.run();
        });
        return true;
    }

    private static int blockingWait(int pid) {
        int[] st = new int[1];
        while (true) {
            int r = NativeIo.waitpid(pid, st, 0);
            if (r == pid) {
                return NativeIo.exitCodeOf(st[0]);
            }
            if (r < 0 && NativeIo.errno() == NativeIo.EINTR) {
                continue;
            }
            return -1;
        }
    }
}
