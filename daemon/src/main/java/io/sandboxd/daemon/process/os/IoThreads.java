package io.sandboxd.daemon.process.os;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads of the process core: a shared pool for blocking pipe reads and stdin writes (threads
 * are reused across processes; small stacks, because a live stream parks one or two of them in
 * {@code read}), and one timer thread for grace periods.
 */
public final class IoThreads {
    private static final long STACK_BYTES = 256 * 1024;

    public final ExecutorService blocking;
    public final ScheduledExecutorService timers;

    public IoThreads() {
        AtomicInteger n = new AtomicInteger();
        blocking = new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                30,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                r -> daemonThread(r, "sandboxd-proc-io-" + n.incrementAndGet()));
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> daemonThread(r, "sandboxd-proc-timer"));
        t.setRemoveOnCancelPolicy(true);
        timers = t;
    }

    private static Thread daemonThread(Runnable r, String name) {
        Thread t = new Thread(null, r, name, STACK_BYTES);
        t.setDaemon(true);
        return t;
    }

    public void shutdown() {
        timers.shutdownNow();
        blocking.shutdown();
    }
}
