package io.sandboxd.daemon.process.os;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One thread and one epoll set for the output pipes and exit notifications (pidfds) of every
 * pipe-mode process, instead of two blocking reader threads and a reaper thread per process.
 * Every descriptor is registered one-shot: after an event it stays disarmed until its handler
 * re-arms it, which is how a consumer without demand stops the reading (and so the writer).
 *
 * <p>Handlers run on the loop thread and must not block. They must also tolerate a spurious
 * event: a descriptor number closed and reused within one batch of events can receive an event
 * meant for its previous owner.
 */
public final class IoLoop implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(IoLoop.class.getName());
    private static final int MAX_EVENTS = 64;

    public interface Handler {
        /** Runs on the loop thread; the descriptor is disarmed until {@link #rearm(int)}. */
        void onEvent();
    }

    private final int epfd;
    private final int wakeFd;
    private final Map<Integer, Handler> handlers = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Memory events = new Memory((long) MAX_EVENTS * NativeIo.EPOLL_EVENT_SIZE);
    private final Memory wakeBuf = new Memory(8);
    private final Memory loopCtlEvent = new Memory(NativeIo.EPOLL_EVENT_SIZE);
    /** Registrations come from transport threads: one event block per thread, not one per call. */
    private static final ThreadLocal<Memory> CTL_EVENT =
            ThreadLocal.withInitial(() -> new Memory(NativeIo.EPOLL_EVENT_SIZE));

    private final Thread thread;
    private volatile boolean closed;

    public IoLoop() {
        epfd = NativeIo.epoll_create1(NativeIo.O_CLOEXEC);
        if (epfd < 0) {
            throw new IllegalStateException("epoll_create1 failed: errno " + NativeIo.errno());
        }
        wakeFd = NativeIo.eventfd(0, NativeIo.EFD_NONBLOCK | NativeIo.EFD_CLOEXEC);
        if (wakeFd < 0) {
            NativeIo.close(epfd);
            throw new IllegalStateException("eventfd failed: errno " + NativeIo.errno());
        }
        ctl(NativeIo.EPOLL_CTL_ADD, wakeFd, NativeIo.EPOLLIN);
        thread = new Thread(null, this::run, "sandboxd-proc-io", 256 * 1024);
        thread.setDaemon(true);
        thread.start();
    }

    boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /** Adds {@code fd} armed for one readable (or hang-up) event. */
    public void register(int fd, Handler handler) {
        handlers.put(fd, handler);
        if (!ctl(NativeIo.EPOLL_CTL_ADD, fd, NativeIo.EPOLLIN | NativeIo.EPOLLONESHOT)) {
            handlers.remove(fd, handler);
            throw new IllegalStateException("epoll_ctl(ADD) failed: errno " + NativeIo.errno());
        }
    }

    /** Arms {@code fd} for its next event; loop thread only (so it never races its close). */
    public void rearm(int fd) {
        ctl(NativeIo.EPOLL_CTL_MOD, fd, NativeIo.EPOLLIN | NativeIo.EPOLLONESHOT);
    }

    /** Stops watching {@code fd} and leaves it open (its owner closes it); loop thread only. */
    public void unregister(int fd) {
        ctl(NativeIo.EPOLL_CTL_DEL, fd, 0);
        handlers.remove(fd);
    }

    /** Removes and closes {@code fd}; loop thread only. */
    public void closeFd(int fd) {
        ctl(NativeIo.EPOLL_CTL_DEL, fd, 0);
        handlers.remove(fd);
        NativeIo.close(fd);
    }

    /** Runs {@code task} on the loop thread, after the events being handled now. */
    public void execute(Runnable task) {
        tasks.add(task);
        if (!inLoop()) {
            wakeBuf.setLong(0, 1);
            NativeIo.write(wakeFd, Pointer.nativeValue(wakeBuf), 8);
        }
    }

    private boolean ctl(int op, int fd, int flags) {
        // epoll_ctl copies the event; the loop reuses its block, other threads get their own.
        Memory ev = inLoop() ? loopCtlEvent : CTL_EVENT.get();
        ev.setInt(0, flags);
        ev.setLong(4, fd);
        return NativeIo.epoll_ctl(epfd, op, fd, ev) == 0;
    }

    private void run() {
        Memory drain = new Memory(8);
        while (!closed) {
            int n = NativeIo.epoll_wait(epfd, events, MAX_EVENTS, -1);
            if (n < 0) {
                if (NativeIo.errno() == NativeIo.EINTR) {
                    continue;
                }
                LOG.log(System.Logger.Level.ERROR, "epoll_wait failed: errno " + NativeIo.errno());
                return;
            }
            for (int i = 0; i < n; i++) {
                int fd = events.getInt((long) i * NativeIo.EPOLL_EVENT_SIZE + 4);
                if (fd == wakeFd) {
                    NativeIo.read(wakeFd, Pointer.nativeValue(drain), 8);
                    continue;
                }
                Handler h = handlers.get(fd);
                if (h != null) {
                    dispatch(h);
                }
            }
            Runnable task;
            while ((task = tasks.poll()) != null) {
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    LOG.log(System.Logger.Level.ERROR, "process I/O task failed", e);
                }
            }
        }
    }

    private static void dispatch(Handler h) {
        try {
            h.onEvent();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "process I/O handler failed", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        execute(() -> {});
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!thread.isAlive()) {
            NativeIo.close(wakeFd);
            NativeIo.close(epfd);
        }
    }
}
