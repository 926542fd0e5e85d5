package io.sandboxd.daemon.process;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/** Runs tasks one at a time, in submission order, on a shared executor (per-process stdin). */
final class SerialExecutor implements Executor {
    private final Executor delegate;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean running;

    SerialExecutor(Executor delegate) {
        this.delegate = delegate;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (queue) {
            queue.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        delegate.execute(this::drain);
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (queue) {
                next = queue.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                // a task's failure is reported through its own future
            }
        }
    }
}
