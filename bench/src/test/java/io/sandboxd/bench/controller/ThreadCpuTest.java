package io.sandboxd.bench.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {
    @Test
    void threadNamesAsLinuxShowsThemFallIntoTheirGroups() {
        assertThat(ThreadCpu.group("sandboxclaim-wo")).isEqualTo("claim_workers");
        assertThat(ThreadCpu.group("sandbox-worker-")).isEqualTo("sandbox_workers");
        assertThat(ThreadCpu.group("sandboxwarmpool")).isEqualTo("warm_pool_workers");
        assertThat(ThreadCpu.group("sandboxtemplate")).isEqualTo("template_workers");
        assertThat(ThreadCpu.group("vert.x-eventloo")).isEqualTo("http_io");
        assertThat(ThreadCpu.group("C2 CompilerThre")).isEqualTo("jit");
        assertThat(ThreadCpu.group("C1 CompilerThre")).isEqualTo("jit");
        assertThat(ThreadCpu.group("VM Thread")).isEqualTo("gc");
        assertThat(ThreadCpu.group("GC Thread#0")).isEqualTo("gc");
        assertThat(ThreadCpu.group("ReconcilerExecu")).isEqualTo("reconcile_workers_unknown");
        assertThat(ThreadCpu.group("fabric8-tasks-0")).isEqualTo("informer_dispatch");
        assertThat(ThreadCpu.group("pool-3-thread-1")).isEqualTo("other");
        assertThat(ThreadCpu.group("sandboxd")).isEqualTo("other");
    }

    @Test
    void ticksAreUtimePlusStimeAndSystemTicksStimeEvenWhenTheNameHoldsSpacesAndParentheses() {
        String stat = "4242 (C2 Compiler) x) S 1 2 3 4 5 6 7 8 9 10 125 37 0 0 20 0 1 0 100 0 0";
        assertThat(ThreadCpu.ticks(stat)).isEqualTo(162);
        assertThat(ThreadCpu.systemTicks(stat)).as("stime, field 15").isEqualTo(37);
    }

    @Test
    void groupsAddUpToTheProcessTotalWithEndedAndUnnamedThreadsInOther() {
        Map<Long, ThreadCpu.Sample> before = Map.of(
                1L, new ThreadCpu.Sample("sandboxclaim-wo", 100, 0, 0),
                2L, new ThreadCpu.Sample("sandbox-worker-", 50, 0, 0),
                3L, new ThreadCpu.Sample("pool-1-thread-1", 10, 0, 0),
                4L, new ThreadCpu.Sample("vert.x-eventloo", 7, 0, 0));
        Map<Long, ThreadCpu.Sample> after = Map.of(
                1L, new ThreadCpu.Sample("sandboxclaim-wo", 130, 0, 0), // +30 ticks
                2L, new ThreadCpu.Sample("sandbox-worker-", 50, 0, 0),
                5L, new ThreadCpu.Sample("sandboxclaim-wo", 20, 0, 0), // new thread: all of it
                4L, new ThreadCpu.Sample("vert.x-eventloo", 17, 0, 0)); // +10; thread 3 ended
        Map<String, Double> ms = ThreadCpu.millisByGroup(before, after, 1000.0, 100.0);
        assertThat(ms.keySet()).containsExactlyElementsOf(ThreadCpu.GROUPS);
        assertThat(ms.get("claim_workers")).isCloseTo(500.0, within(1e-9));
        assertThat(ms.get("sandbox_workers")).isZero();
        assertThat(ms.get("http_io")).isCloseTo(100.0, within(1e-9));
        assertThat(ms.get("other")).isCloseTo(400.0, within(1e-9));
        assertThat(ms.values().stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(1000.0, within(1e-9));
    }

    @Test
    void aWorkerCaughtReconcilingCountsUnderTheNameItHadAtTheOtherSample() {
        Map<Long, ThreadCpu.Sample> before = Map.of(
                1L, new ThreadCpu.Sample("sandbox-worker-", 100, 0, 0),
                2L, new ThreadCpu.Sample(ThreadCpu.RECONCILING, 40, 0, 0),
                3L, new ThreadCpu.Sample(ThreadCpu.RECONCILING, 10, 0, 0),
                4L, new ThreadCpu.Sample("pool-1-thread-1", 500, 0, 0));
        Map<Long, ThreadCpu.Sample> after = Map.of(
                1L, new ThreadCpu.Sample(ThreadCpu.RECONCILING, 130, 0, 0), // +30, a Sandbox worker
                2L, new ThreadCpu.Sample("sandboxclaim-wo", 60, 0, 0), // +20, a claim worker
                3L, new ThreadCpu.Sample(ThreadCpu.RECONCILING, 15, 0, 0), // +5, reconciling at both
                4L, new ThreadCpu.Sample("sandboxclaim-wo", 8, 0, 0)); // another thread on a reused id
        Map<String, Double> ms = ThreadCpu.millisByGroup(before, after, 1000.0, 100.0);
        assertThat(ms.get("sandbox_workers")).isCloseTo(300.0, within(1e-9));
        assertThat(ms.get("claim_workers")).isCloseTo(280.0, within(1e-9));
        assertThat(ms.get("reconcile_workers_unknown")).isCloseTo(50.0, within(1e-9));
        assertThat(ms.get("other")).isCloseTo(370.0, within(1e-9));
    }

    @Test
    void runQueueWaitIsTheSecondSchedstatField() {
        assertThat(ThreadCpu.runQueueNanos("769274 7950119 3\n")).isEqualTo(7_950_119L);
    }

    @Test
    void timeslicesAreTheThirdSchedstatFieldAndGrowByGroupLikeTheCpu() {
        assertThat(ThreadCpu.timeslices("769274 7950119 3\n")).isEqualTo(3L);
        Map<Long, ThreadCpu.Sample> before = Map.of(
                1L, new ThreadCpu.Sample("sandboxclaim-wo", 0, 0, 40),
                2L, new ThreadCpu.Sample("fabric8-tasks-0", 0, 0, 1_000),
                3L, new ThreadCpu.Sample("pool-1-thread-1", 0, 0, 5));
        Map<Long, ThreadCpu.Sample> after = Map.of(
                1L, new ThreadCpu.Sample(ThreadCpu.RECONCILING, 0, 0, 52), // +12, a claim worker
                2L, new ThreadCpu.Sample("fabric8-tasks-0", 0, 0, 1_300), // +300
                3L, new ThreadCpu.Sample("pool-1-thread-1", 0, 0, 9), // +4, unnamed
                4L, new ThreadCpu.Sample("vert.x-eventloo", 0, 0, 70)); // new: all of it
        Map<String, Long> slices = ThreadCpu.timeslicesByGroup(before, after);
        assertThat(slices.keySet()).containsExactlyElementsOf(ThreadCpu.GROUPS);
        assertThat(slices)
                .containsEntry("claim_workers", 12L)
                .containsEntry("informer_dispatch", 300L)
                .containsEntry("http_io", 70L)
                .containsEntry("other", 4L)
                .containsEntry("sandbox_workers", 0L);
    }

    @Test
    void runQueueWaitCountsNewThreadsWhollyAndAReusedIdAsANewThread() {
        Map<Long, ThreadCpu.Sample> before = Map.of(
                1L, new ThreadCpu.Sample("sandboxclaim-wo", 0, 1_000_000, 0),
                2L, new ThreadCpu.Sample("sandbox-worker-", 0, 5_000_000, 0),
                3L, new ThreadCpu.Sample("pool-1-thread-1", 0, 9_000_000, 0));
        Map<Long, ThreadCpu.Sample> after = Map.of(
                1L, new ThreadCpu.Sample(ThreadCpu.RECONCILING, 0, 3_500_000, 0), // +2.5 ms
                2L, new ThreadCpu.Sample("sandbox-worker-", 0, 5_000_000, 0), // +0
                3L, new ThreadCpu.Sample("sandboxclaim-wo", 0, 250_000, 0), // another thread: 0.25 ms
                4L, new ThreadCpu.Sample("vert.x-eventloo", 0, 1_000_000, 0)); // new: 1 ms
        assertThat(ThreadCpu.runQueueMillis(before, after)).isCloseTo(3.75, within(1e-9));
    }

    @Test
    void readsThisProcesssOwnThreadsByTheirJavaNames() throws Exception {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        Thread t = new Thread(
                () -> {
                    try {
                        done.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "sandboxclaim-worker-9");
        t.start();
        try {
            Map<Long, ThreadCpu.Sample> mine =
                    ThreadCpu.read(ProcessHandle.current().pid());
            assertThat(mine).containsKey(ProcessHandle.current().pid());
            assertThat(mine.values())
                    .anySatisfy(s -> assertThat(ThreadCpu.group(s.name())).isEqualTo("claim_workers"));
            assertThat(mine.values())
                    .allSatisfy(s -> assertThat(s.runQueueNanos()).isNotNegative());
        } finally {
            done.countDown();
            t.join();
        }
    }
}
