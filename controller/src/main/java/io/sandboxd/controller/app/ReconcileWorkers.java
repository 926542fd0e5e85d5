package io.sandboxd.controller.app;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reconcile workers per controller, like upstream's per-controller concurrent-worker flags: a
 * burst of claims never waits behind the Sandbox reconciles that the same burst (and the
 * pool's replenishment) sets off. JOSDK 5 has one reconcile executor for all controllers, so
 * this is that executor: it hands each reconcile to its controller's own fixed pool.
 *
 * <p>JOSDK names the controller only in its task's {@code toString()} ("name -> resource id",
 * cheap: no resource is printed); a task that does not start with a known name (JOSDK's own
 * start-up work) runs on a small shared pool. {@link #unrouted()} counts those, so a JOSDK
 * upgrade that changes the format shows up in the tests instead of silently sharing one pool.
 */
public final class ReconcileWorkers extends AbstractExecutorService {
    private static final String SEPARATOR = " -> ";
    private final Map<String, ThreadPoolExecutor> pools = new LinkedHashMap<>();
    private final ThreadPoolExecutor shared;
    private final AtomicInteger unrouted = new AtomicInteger();

    /** {@code workers}: controller name → its number of reconcile threads. */
    public ReconcileWorkers(Map<String, Integer> workers, int sharedThreads) {
        workers.forEach((name, n) -> pools.put(name, fixed(name + "-worker", n)));
        shared = fixed("josdk-worker", sharedThreads);
    }

    private static ThreadPoolExecutor fixed(String prefix, int n) {
        if (n < 1) throw new IllegalArgumentException(prefix + ": at least 1 worker, not " + n);
        AtomicInteger seq = new AtomicInteger();
        return new ThreadPoolExecutor(n, n, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, prefix + "-" + seq.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** The controller a JOSDK reconcile task is for, or null. */
    static String controllerOf(Runnable task) {
        String s = task.toString();
        int i = s.indexOf(SEPARATOR);
        return i < 0 ? null : s.substring(0, i);
    }

    @Override
    public void execute(Runnable task) {
        ThreadPoolExecutor pool = pools.get(controllerOf(task));
        if (pool == null) {
            unrouted.incrementAndGet();
            pool = shared;
        }
        pool.execute(task);
    }

    /** Tasks that ran on the shared pool because they named no known controller. */
    public int unrouted() {
        return unrouted.get();
    }

    /** Reconciles completed by one controller's workers. */
    public long completed(String controller) {
        return pools.get(controller).getCompletedTaskCount();
    }

    private List<ThreadPoolExecutor> all() {
        List<ThreadPoolExecutor> all = new ArrayList<>(pools.values());
        all.add(shared);
        return all;
    }

    @Override
    public void shutdown() {
        all().forEach(ThreadPoolExecutor::shutdown);
    }

    @Override
    public List<Runnable> shutdownNow() {
        List<Runnable> out = new ArrayList<>();
        for (ThreadPoolExecutor p : all()) out.addAll(p.shutdownNow());
        return out;
    }

    @Override
    public boolean isShutdown() {
        return all().stream().allMatch(ThreadPoolExecutor::isShutdown);
    }

    @Override
    public boolean isTerminated() {
        return all().stream().allMatch(ThreadPoolExecutor::isTerminated);
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (ThreadPoolExecutor p : all()) {
            if (!p.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) return false;
        }
        return true;
    }
}
