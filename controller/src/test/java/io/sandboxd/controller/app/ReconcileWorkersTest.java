package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReconcileWorkersTest {
    /** A task that names its controller the way JOSDK's ReconcilerExecutor does. */
    static Runnable task(String controller, Runnable body) {
        return new Runnable() {
            @Override
            public void run() {
                body.run();
            }

            @Override
            public String toString() {
                return controller + " -> ExecutionScope{resource id: ResourceID{name='x', namespace='ns'}}";
            }
        };
    }

    @Test
    void eachControllersTasksRunOnItsOwnThreadsAndOthersOnTheSharedPool() throws Exception {
        ReconcileWorkers w = new ReconcileWorkers(Map.of("sandboxclaim", 2, "sandbox", 3), 1);
        Map<String, String> threadOf = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(3);
        w.execute(task("sandboxclaim", () -> {
            threadOf.put("claim", Thread.currentThread().getName());
            done.countDown();
        }));
        w.execute(task("sandbox", () -> {
            threadOf.put("sandbox", Thread.currentThread().getName());
            done.countDown();
        }));
        w.execute(() -> {
            threadOf.put("other", Thread.currentThread().getName());
            done.countDown();
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(threadOf.get("claim")).startsWith("sandboxclaim-worker-");
        assertThat(threadOf.get("sandbox")).startsWith("sandbox-worker-");
        assertThat(threadOf.get("other")).startsWith("josdk-worker-");
        assertThat(w.unrouted()).isEqualTo(1);
        w.shutdown();
        assertThat(w.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(w.completed("sandboxclaim")).isEqualTo(1);
    }

    @Test
    void aBusyControllerDoesNotHoldUpAnother() throws Exception {
        ReconcileWorkers w = new ReconcileWorkers(Map.of("sandbox", 1, "sandboxclaim", 1), 1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch claimRan = new CountDownLatch(1);
        w.execute(task("sandbox", () -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        w.execute(task("sandboxclaim", claimRan::countDown));
        assertThat(claimRan.await(10, TimeUnit.SECONDS))
                .as("claim ran while every sandbox worker was busy")
                .isTrue();
        release.countDown();
        w.shutdownNow();
    }

    @Test
    void routesByTheControllerNameBeforeTheArrow() {
        assertThat(ReconcileWorkers.controllerOf(task("sandboxwarmpool", () -> {})))
                .isEqualTo("sandboxwarmpool");
        assertThat(ReconcileWorkers.controllerOf(() -> {})).isNull();
        assertThatThrownBy(() -> new ReconcileWorkers(Map.of("sandbox", 0), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
