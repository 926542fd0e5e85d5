package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FabricTaskPoolTest {
    private final FabricTaskPool supplier = new FabricTaskPool(new ApiEventLoops(1));

    @Test
    void tasksRunOnNamedWorkers() throws Exception {
        ExecutorService pool = (ExecutorService) supplier.get();
        try {
            CompletableFuture<String> name = new CompletableFuture<>();
            pool.execute(() -> name.complete(Thread.currentThread().getName()));
            assertThat(name.get(10, TimeUnit.SECONDS)).startsWith("fabric8-tasks-");
        } finally {
            supplier.onClose(pool);
        }
    }

    /**
     * More tasks than workers wait on a future that only a later task completes, as fabric8's
     * leader election and cache-sync waits do: a fixed pool of two would never run that task.
     */
    @Test
    void tasksBlockedOnFuturesDoNotStarveTheTaskThatCompletesThem() throws Exception {
        ExecutorService pool = (ExecutorService) supplier.get();
        try {
            int waiters = FabricTaskPool.WORKERS + 2;
            CompletableFuture<String> answer = new CompletableFuture<>();
            CountDownLatch allWaiting = new CountDownLatch(waiters);
            List<String> seen = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(waiters);
            for (int i = 0; i < waiters; i++) {
                pool.execute(() -> {
                    allWaiting.countDown();
                    seen.add(answer.join());
                    done.countDown();
                });
            }
            assertThat(allWaiting.await(10, TimeUnit.SECONDS)).isTrue();
            pool.execute(() -> answer.complete("renewed"));
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(seen).hasSize(waiters).containsOnly("renewed");
        } finally {
            supplier.onClose(pool);
        }
    }

    @Test
    void closingTheClientStopsTheWorkers() throws Exception {
        ExecutorService pool = (ExecutorService) supplier.get();
        pool.execute(() -> {});
        supplier.onClose(pool);
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
}
