package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The directory-fsync group commit: a caller returns only after an fsync that started after its
 * call (i.e. after its rename) finished, and callers that arrive while one fsync runs share the
 * next one. The fsync is a fake that blocks until the test lets it go, so the interleavings are
 * forced, not hoped for.
 */
class DirectorySyncTest {
    private static final long WAIT_S = 30;
    private static final DirectorySync.Key DIR = new DirectorySync.Key(1, 100);

    private final DirectorySync sync = new DirectorySync();
    /** Ordered record of what happened: "start N", "end N", "done NAME". */
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());

    private final AtomicInteger fsyncs = new AtomicInteger();
    /** One permit lets one fsync finish. */
    private final Semaphore release = new Semaphore(0);

    private final List<Thread> threads = new ArrayList<>();

    private void blockingFsync() {
        int n = fsyncs.incrementAndGet();
        events.add("start " + n);
        release.acquireUninterruptibly();
        events.add("end " + n);
    }

    private Thread caller(String name, DirectorySync.Key key) {
        Thread t = new Thread(
                () -> {
                    sync.syncAfterRename(key, this::blockingFsync);
                    events.add("done " + name);
                },
                "caller-" + name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    @AfterEach
    void releaseAll() {
        release.release(1000);
    }

    @Test
    void aRenameAfterAnFsyncStartedWaitsForTheNextFsync() throws Exception {
        Thread a = caller("a", DIR);
        awaitEvent("start 1");
        // b renames while a's fsync runs: that fsync may not cover b's rename
        Thread b = caller("b", DIR);
        awaitState(b, Thread.State.WAITING);
        release.release(); // fsync 1 completes
        a.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(events()).contains("done a");
        awaitEvent("start 2");
        assertThat(events()).doesNotContain("done b");
        release.release();
        b.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(events()).containsSubsequence("start 2", "end 2", "done b");
        assertThat(events.indexOf("done b")).isGreaterThan(events.indexOf("start 2"));
        assertThat(fsyncs).hasValue(2);
        assertThat(sync.activeDirectories()).isZero();
    }

    @Test
    void callersWaitingDuringOneFsyncShareTheNextOne() throws Exception {
        Thread first = caller("first", DIR);
        awaitEvent("start 1");
        List<Thread> waiting = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waiting.add(caller("w" + i, DIR));
        }
        for (Thread t : waiting) {
            awaitState(t, Thread.State.WAITING);
        }
        release.release(2); // fsync 1 and the one shared fsync 2
        first.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        for (Thread t : waiting) {
            t.join(TimeUnit.SECONDS.toMillis(WAIT_S));
            assertThat(t.isAlive()).isFalse();
        }
        assertThat(fsyncs)
                .as("six renames during fsync 1 are covered by one more fsync")
                .hasValue(2);
        for (int i = 0; i < 6; i++) {
            assertThat(events.indexOf("done w" + i)).isGreaterThan(events.indexOf("end 2"));
        }
    }

    @Test
    void differentDirectoriesDoNotCoverEachOther() throws Exception {
        Thread a = caller("a", DIR);
        awaitEvent("start 1");
        Thread other = caller("other", new DirectorySync.Key(1, 200));
        awaitEvent("start 2"); // runs its own fsync at once, does not wait for or share a's
        release.release(2);
        a.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        other.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(events()).contains("done a", "done other");
        assertThat(fsyncs).hasValue(2);
        assertThat(sync.activeDirectories()).isZero();
    }

    @Test
    void manyConcurrentCallersAllReturnAndEachIsCovered() throws Exception {
        DirectorySync real = new DirectorySync();
        // the "renames": a clock each caller ticks before it calls, as the store renames first
        AtomicLong renames = new AtomicLong();
        // highest rename tick that a completed fsync had seen when it started
        AtomicLong covered = new AtomicLong();
        AtomicInteger fsyncCount = new AtomicInteger();
        int callers = 16;
        int rounds = 200;
        CountDownLatch done = new CountDownLatch(callers);
        AtomicInteger violations = new AtomicInteger();
        for (int c = 0; c < callers; c++) {
            Thread t = new Thread(() -> {
                for (int i = 0; i < rounds; i++) {
                    long myRename = renames.incrementAndGet();
                    real.syncAfterRename(DIR, () -> {
                        long sees = renames.get();
                        fsyncCount.incrementAndGet();
                        Thread.yield();
                        covered.accumulateAndGet(sees, Math::max);
                    });
                    if (covered.get() < myRename) {
                        violations.incrementAndGet();
                    }
                }
                done.countDown();
            });
            t.setDaemon(true);
            t.start();
        }
        assertThat(done.await(WAIT_S * 2, TimeUnit.SECONDS)).isTrue();
        assertThat(violations)
                .as("callers that returned before an fsync started after their rename")
                .hasValue(0);
        assertThat(fsyncCount.get()).isBetween(1, callers * rounds);
        assertThat(real.activeDirectories()).isZero();
    }

    /**
     * A copy taken under the list's lock: the callers still running add to it, and iterating a
     * synchronized list without its lock fails with a ConcurrentModificationException.
     */
    private List<String> events() {
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    private void awaitEvent(String e) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (!events.contains(e)) {
            assertThat(System.nanoTime())
                    .as("waiting for " + e + " in " + events())
                    .isLessThan(end);
            Thread.sleep(5);
        }
    }

    private static void awaitState(Thread t, Thread.State s) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (t.getState() != s) {
            assertThat(System.nanoTime()).as(t.getName() + " to reach " + s).isLessThan(end);
            Thread.sleep(5);
        }
    }
}
