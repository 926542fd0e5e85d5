package io.sandboxd.daemon.code;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Where everything about the kernels happens: the ZeroMQ sockets (which are not thread-safe),
 * the tasks other threads hand in, the timers, and every code context's state. All of that is
 * guarded by one lock, the "loop": a task runs holding it, so contexts need no locks of their own.
 *
 * <p>One thread waits for the sockets and runs the handlers and timers. A task handed in while the
 * loop is free runs at once on the caller's thread (with the tasks queued before it, in order):
 * an Execute then goes from the gRPC event loop straight to the kernel's socket instead of
 * waking this thread first, a thread hop that cost 2.6 ms p50 under a load average of 30
 * (bench {@code code}, traced). Because such a task may consume a socket's wake-up signal, the
 * thread is woken afterwards and looks at every socket again.
 *
 * <p>A ZeroMQ socket's file descriptor only says that its state may have changed (edge), so each
 * round asks every socket for its events (level) and calls the handler of each readable one;
 * a handler reads a bounded batch, and a socket still readable afterwards is served again in the
 * next round before the thread sleeps. Handlers and tasks must not block. ZeroMQ itself adds one
 * I/O thread and a reaper.
 */
final class KernelLoop implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger("sandboxd.code");

    /** A timer; {@link #cancel()} on the loop. */
    static final class Timer implements Comparable<Timer> {
        private final long dueNanos;
        private final long seq;
        private final Runnable task;
        private boolean cancelled;

        private Timer(long dueNanos, long seq, Runnable task) {
            this.dueNanos = dueNanos;
            this.seq = seq;
            this.task = task;
        }

        void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Timer o) {
            int c = Long.compare(dueNanos, o.dueNanos);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /** A polled socket and what to do when it has a message. */
    private record Reader(ZMQ.Socket socket, Runnable onReadable, SelectionKey key) {}

    private final ZContext zmq = new ZContext(1);
    private final ReentrantLock lock = new ReentrantLock();
    private final Thread thread;
    private final Selector selector;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Pipe wake;
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private final ByteBuffer wakeByte = ByteBuffer.allocate(1);
    private final ByteBuffer drain = ByteBuffer.allocate(64);
    private final List<Reader> readers = new ArrayList<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long timerSeq;
    private volatile boolean closed;

    KernelLoop() throws IOException {
        zmq.setLinger(0);
        selector = Selector.open();
        wake = Pipe.open();
        wake.source().configureBlocking(false);
        wake.source().register(selector, SelectionKey.OP_READ);
        thread = new Thread(this::run, "sandboxd-kernels");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Runs {@code task} on the loop, after the tasks handed in before it: at once on this thread
     * when the loop is free, else on the loop's thread as soon as it is. Any thread.
     */
    void execute(Runnable task) {
        tasks.add(task);
        if (lock.isHeldByCurrentThread()) {
            return; // this thread runs the queue before it lets go of the loop
        }
        if (!closed && lock.tryLock()) {
            try {
                runTasks();
            } finally {
                lock.unlock();
            }
        }
        // Either the loop thread runs the task, or it must recompute its timers and look at every
        // socket again (the task may have used one and taken its wake-up signal).
        wakeUp();
    }

    /** On the loop. */
    Timer schedule(long delayMillis, Runnable task) {
        Timer t = new Timer(System.nanoTime() + delayMillis * 1_000_000L, timerSeq++, task);
        timers.add(t);
        return t;
    }

    /** A new socket with linger 0 (closing never waits for unsent messages). On the loop. */
    ZMQ.Socket socket(SocketType type) {
        ZMQ.Socket s = zmq.createSocket(type);
        s.setLinger(0);
        return s;
    }

    /** Calls {@code onReadable} whenever {@code s} has a message. On the loop. */
    void register(ZMQ.Socket s, Runnable onReadable) {
        try {
            readers.add(new Reader(s, onReadable, s.getFD().register(selector, SelectionKey.OP_READ)));
        } catch (ClosedChannelException e) {
            throw new IllegalStateException("socket closed before it was polled", e);
        }
    }

    /** Stops polling and closes {@code s}. On the loop. */
    void close(ZMQ.Socket s) {
        for (int i = 0; i < readers.size(); i++) {
            if (readers.get(i).socket() == s) {
                readers.remove(i).key().cancel();
                break;
            }
        }
        zmq.destroySocket(s);
    }

    private void run() {
        try {
            while (!closed) {
                long wait;
                lock.lock();
                try {
                    runTasks();
                    boolean more = serveReaders();
                    wait = runTimers();
                    if (more || !tasks.isEmpty()) {
                        wait = 0;
                    }
                } finally {
                    lock.unlock();
                }
                if (closed) {
                    break;
                }
                if (wait == 0) {
                    selector.selectNow();
                } else {
                    selector.select(Math.max(wait, 0)); // 0: until woken
                }
                selector.selectedKeys().clear();
                drainWake();
            }
        } catch (IOException e) {
            if (!closed) {
                LOG.error("sandboxd: code contexts: the kernel loop failed: {}", e.toString());
            }
        } catch (RuntimeException | Error e) {
            if (!closed) {
                throw e;
            }
        }
    }

    /** Calls the handler of every readable socket once; true if one is still readable after. */
    private boolean serveReaders() {
        boolean more = false;
        // A handler may close sockets (its own or others) and open new ones: iterate over a copy
        // and skip the ones closed meanwhile.
        for (Reader r : readers.toArray(new Reader[0])) {
            if (r.key().isValid() && readable(r.socket())) {
                safely(r.onReadable());
                runTasks();
                more |= r.key().isValid() && readable(r.socket());
            }
        }
        return more;
    }

    private static boolean readable(ZMQ.Socket s) {
        return (s.getEvents() & ZMQ.Poller.POLLIN) != 0;
    }

    private void runTasks() {
        Runnable r;
        while ((r = tasks.poll()) != null) {
            safely(r);
        }
    }

    /** Runs due timers; returns how long to wait (ms; -1: until woken). */
    private long runTimers() {
        while (!timers.isEmpty()) {
            Timer t = timers.peek();
            if (t.cancelled) {
                timers.poll();
                continue;
            }
            long left = t.dueNanos - System.nanoTime();
            if (left > 0) {
                return Math.max(1, (left + 999_999) / 1_000_000);
            }
            timers.poll();
            safely(t.task);
            runTasks();
        }
        return -1;
    }

    /** A bug in one context's handling must not stop every other kernel's loop. */
    private static void safely(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.error("sandboxd: code contexts: unexpected " + e, e);
        }
    }

    private void wakeUp() {
        if (wakePending.compareAndSet(false, true)) {
            try {
                synchronized (wakeByte) {
                    wakeByte.clear();
                    wake.sink().write(wakeByte);
                }
            } catch (IOException e) {
                // closed: the loop is gone and so are its tasks
            }
        }
    }

    private void drainWake() {
        wakePending.set(false);
        try {
            while (true) {
                drain.clear();
                if (wake.source().read(drain) <= 0) {
                    return;
                }
            }
        } catch (IOException e) {
            // closed while shutting down
        }
    }

    /** Stops the thread, then closes every socket and the ZeroMQ context. Not on the loop. */
    @Override
    public void close() {
        closed = true;
        wakeUp();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        zmq.close();
        try {
            selector.close();
            wake.sink().close();
            wake.source().close();
        } catch (IOException e) {
            // nothing left to release
        }
    }
}
