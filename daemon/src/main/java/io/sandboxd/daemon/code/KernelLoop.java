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
import java.util.concurrent.locks.LockSupport;
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
 * caller then asks every socket for its events, and wakes the thread only when it must: a socket
 * to read, a new socket to wait for, or a timer due before the thread's planned wake-up.
 *
 * <p>A ZeroMQ socket's file descriptor only says that its state may have changed (edge), so each
 * round asks every socket for its events (level) and calls the handler of each readable one;
 * a handler reads a bounded batch, and a socket still readable afterwards is served again in the
 * next round before the thread sleeps. A descriptor ready while its socket has nothing makes the
 * thread step aside briefly instead of selecting again at once (see {@link #run()}). Handlers and
 * tasks must not block. ZeroMQ itself adds one I/O thread and a reaper.
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

    /** How long the thread steps aside after a spurious wake-up, at first and at most (see run). */
    private static final long STALE_PAUSE_MIN_NANOS = 20_000;

    private static final long STALE_PAUSE_MAX_NANOS = 1_000_000;

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
    /** When the loop thread wakes up by itself next (System.nanoTime); on the loop. */
    private long plannedWakeNanos;
    /** Set by a task run off the loop thread that needs the loop thread to wake up; on the loop. */
    private boolean wakeNeeded;

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
            boolean wake;
            try {
                runTasks();
                // A task that used a socket may have taken its wake-up signal (JeroMQ handles a
                // socket's pending commands on every call): a readable socket still needs the
                // loop thread. Waking it only when it must (that, a new socket, an earlier timer)
                // saves a thread hop per Execute; the handlers stay off the caller's thread.
                wake = anyReadable() || wakeNeeded || !tasks.isEmpty();
            } finally {
                lock.unlock();
            }
            if (!wake) {
                return;
            }
        }
        wakeUp();
    }

    /** On the loop. */
    Timer schedule(long delayMillis, Runnable task) {
        Timer t = new Timer(System.nanoTime() + delayMillis * 1_000_000L, timerSeq++, task);
        timers.add(t);
        if (t.dueNanos - plannedWakeNanos < 0) {
            wakeNeeded = true;
        }
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
            wakeNeeded = true; // a selector takes new keys at its next select, not during one
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
        long pause = 0;
        boolean readerSelected = false;
        try {
            while (!closed) {
                long wait;
                boolean served;
                lock.lock();
                try {
                    served = runTasks();
                    int round = serveReaders();
                    served |= round != IDLE;
                    wait = runTimers();
                    if (round == MORE || !tasks.isEmpty()) {
                        wait = 0;
                    }
                    long now = System.nanoTime();
                    plannedWakeNanos = wait < 0 ? now + Long.MAX_VALUE / 2 : now + wait * 1_000_000L;
                    wakeNeeded = false;
                } finally {
                    lock.unlock();
                }
                if (closed) {
                    break;
                }
                if (readerSelected && !served) {
                    // A socket's descriptor was ready but the socket had nothing: JeroMQ's Signaler
                    // writes its wake-up byte before it counts it, and until the writing thread
                    // (ZeroMQ's I/O thread) counts it the socket ignores the byte, which keeps the
                    // descriptor ready. Selecting again at once spun this thread (a select every
                    // 7 us, for up to 14 ms per Execute in a bench code trace), starving that very
                    // thread on a 2-core machine. Step aside instead, a little longer each time.
                    pause = pause == 0 ? STALE_PAUSE_MIN_NANOS : Math.min(STALE_PAUSE_MAX_NANOS, pause * 2);
                    LockSupport.parkNanos(pause);
                    wait = 0; // the socket is looked at again before any sleep
                } else {
                    pause = 0;
                }
                if (wait == 0) {
                    selector.selectNow();
                } else {
                    selector.select(Math.max(wait, 0)); // 0: until woken
                }
                readerSelected = false;
                boolean woken = false;
                for (SelectionKey k : selector.selectedKeys()) {
                    if (k.channel() == wake.source()) {
                        woken = true;
                    } else {
                        readerSelected = true;
                    }
                }
                selector.selectedKeys().clear();
                if (woken) {
                    drainWake();
                }
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

    private static final int IDLE = 0;
    private static final int SERVED = 1;
    private static final int MORE = 2;

    /**
     * Calls the handler of every readable socket once: IDLE if none was readable, MORE if one is
     * still readable after its handler, else SERVED.
     */
    private int serveReaders() {
        int result = IDLE;
        // A handler may close sockets (its own or others) and open new ones: iterate over a copy
        // and skip the ones closed meanwhile.
        for (Reader r : readers.toArray(new Reader[0])) {
            if (r.key().isValid() && readable(r.socket())) {
                safely(r.onReadable());
                runTasks();
                result = Math.max(result, r.key().isValid() && readable(r.socket()) ? MORE : SERVED);
            }
        }
        return result;
    }

    private boolean anyReadable() {
        for (Reader r : readers) {
            if (r.key().isValid() && readable(r.socket())) {
                return true;
            }
        }
        return false;
    }

    private static boolean readable(ZMQ.Socket s) {
        return (s.getEvents() & ZMQ.Poller.POLLIN) != 0;
    }

    /** Runs the queued tasks; true if there was one. */
    private boolean runTasks() {
        boolean ran = false;
        Runnable r;
        while ((r = tasks.poll()) != null) {
            safely(r);
            ran = true;
        }
        return ran;
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
        LockSupport.unpark(thread); // in case it is stepping aside (see run)
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

    /**
     * Reads the wake-up bytes, then allows the next one. In the other order a byte written between
     * the two was read here yet still counted as pending, so no caller wrote one again: the loop
     * thread slept through every later hand-off until a timer or a socket woke it, and for good
     * with neither (KernelLoopTest). Two hand-offs as the loop starts (the idle reaper's first
     * round, then the first context's launch) can race so: the new kernel's sockets and timers
     * then wait for the reaper's next round, 60 s by default, the likely cause of a CI run whose
     * first CreateContext (conformance CODE-EXEC-001) did not answer within 60 s. A caller that
     * finds one pending queued its task first, so the round after this one runs it.
     */
    private void drainWake() {
        try {
            while (true) {
                drain.clear();
                if (wake.source().read(drain) <= 0) {
                    break;
                }
            }
        } catch (IOException e) {
            // closed while shutting down
        }
        wakePending.set(false);
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
