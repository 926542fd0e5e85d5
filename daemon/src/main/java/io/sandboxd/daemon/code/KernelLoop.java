package io.sandboxd.daemon.code;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The one thread that speaks to every kernel: it owns all ZeroMQ sockets (which are not
 * thread-safe), polls them, runs tasks other threads hand it and the timers it sets. Everything a
 * code context does to its kernel and its executions happens here, so their state needs no lock.
 * Handlers must not block. ZeroMQ itself adds one I/O thread and a reaper.
 */
final class KernelLoop implements AutoCloseable {
    /** A timer; {@link #cancel()} on the loop thread. */
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

    private final ZContext zmq = new ZContext(1);
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Pipe wake;
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private final ByteBuffer wakeByte = ByteBuffer.allocate(1);
    private final ByteBuffer drain = ByteBuffer.allocate(64);
    private final Map<ZMQ.Socket, Runnable> readers = new LinkedHashMap<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long timerSeq;
    private ZMQ.Poller poller;
    private List<Runnable> polled = List.of();
    private boolean readersChanged = true;
    private volatile boolean closed;

    KernelLoop() throws IOException {
        zmq.setLinger(0);
        wake = Pipe.open();
        wake.source().configureBlocking(false);
        thread = new Thread(this::run, "sandboxd-kernels");
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs {@code task} on the loop thread, after the tasks handed in before it. Any thread. */
    void execute(Runnable task) {
        tasks.add(task);
        if (Thread.currentThread() != thread && wakePending.compareAndSet(false, true)) {
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

    boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /** Loop thread. */
    Timer schedule(long delayMillis, Runnable task) {
        Timer t = new Timer(System.nanoTime() + delayMillis * 1_000_000L, timerSeq++, task);
        timers.add(t);
        return t;
    }

    /** A new socket with linger 0 (closing never waits for unsent messages). Loop thread. */
    ZMQ.Socket socket(SocketType type) {
        ZMQ.Socket s = zmq.createSocket(type);
        s.setLinger(0);
        return s;
    }

    /** Calls {@code onReadable} whenever {@code s} has a message. Loop thread. */
    void register(ZMQ.Socket s, Runnable onReadable) {
        readers.put(s, onReadable);
        readersChanged = true;
    }

    /** Stops polling and closes {@code s}. Loop thread. */
    void close(ZMQ.Socket s) {
        if (readers.remove(s) != null) {
            readersChanged = true;
        }
        zmq.destroySocket(s);
    }

    private void run() {
        try {
            while (!closed) {
                runTasks();
                long wait = runTimers();
                if (closed) {
                    break;
                }
                if (readersChanged) {
                    rebuildPoller();
                }
                poller.poll(wait);
                if (poller.pollin(0)) {
                    drainWake();
                }
                for (int i = 1; i < poller.getSize(); i++) {
                    if (poller.pollin(i)) {
                        safely(polled.get(i - 1));
                        if (readersChanged) {
                            break; // a handler closed sockets: the rest are polled again (level-triggered)
                        }
                    }
                }
            }
        } catch (RuntimeException | Error e) {
            if (!closed) {
                throw e;
            }
        } finally {
            if (poller != null) {
                poller.close();
            }
        }
    }

    private void runTasks() {
        Runnable r;
        while ((r = tasks.poll()) != null) {
            safely(r);
        }
    }

    /** Runs due timers; returns how long to poll (ms, -1: until woken). */
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
            System.err.println("sandboxd: code contexts: unexpected " + e);
        }
    }

    private void rebuildPoller() {
        if (poller != null) {
            poller.close();
        }
        poller = zmq.createPoller(readers.size() + 1);
        poller.register(wake.source(), ZMQ.Poller.POLLIN);
        List<Runnable> handlers = new ArrayList<>(readers.size());
        for (Map.Entry<ZMQ.Socket, Runnable> e : readers.entrySet()) {
            poller.register(e.getKey(), ZMQ.Poller.POLLIN);
            handlers.add(e.getValue());
        }
        polled = handlers;
        readersChanged = false;
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

    /** Stops the thread, then closes every socket and the ZeroMQ context. Not on the loop thread. */
    @Override
    public void close() {
        closed = true;
        execute(() -> {});
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        zmq.close();
        try {
            wake.sink().close();
            wake.source().close();
        } catch (IOException e) {
            // nothing left to release
        }
    }
}
