package io.sandboxd.controller.app;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * The executor fabric8 runs informer callbacks, watch reconnects and leader-election steps on: a
 * two-thread fork-join pool in FIFO (async) mode instead of fabric8's default cached pool.
 *
 * <p>Why: in a warm-claim burst the cached pool grew to 14 threads and handed each watch event to
 * whichever idle thread it found, 133k context switches over the run. With two workers the thread
 * that just ran a callback usually takes the next one: controller CPU until the pool is refilled
 * 5.77-6.28 → 5.38-5.56 ms per warm claim (bench {@code controller --launch-types warm}, six runs
 * against four, interleaved, 2-core machine). A plain fixed pool of two measured the same, but
 * fabric8's leader election and cache-sync waits block on {@code CompletableFuture}s inside these
 * tasks; a fork-join pool adds a compensating worker while one is blocked that way, so it cannot
 * starve itself as a fixed pool of two would.
 *
 * <p>fabric8 tells this supplier when the client has closed (after its HTTP client), so it also
 * closes what fabric8 does not own and the client's threads need closing with it: the client's
 * {@link ApiEventLoops}.
 */
final class FabricTaskPool implements KubernetesClientBuilder.ExecutorSupplier {
    static final int WORKERS = 2;

    private final ApiEventLoops loops;

    /** @param loops closed once the client has closed, after these workers stop */
    FabricTaskPool(ApiEventLoops loops) {
        this.loops = loops;
    }

    @Override
    public Executor get() {
        return new ForkJoinPool(WORKERS, FabricTaskPool::worker, null, true);
    }

    @Override
    public void onClose(Executor executor) {
        ((ExecutorService) executor).shutdownNow();
        loops.close();
    }

    private static ForkJoinWorkerThread worker(ForkJoinPool pool) {
        ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
        t.setName("fabric8-tasks-" + t.getPoolIndex());
        return t;
    }
}
