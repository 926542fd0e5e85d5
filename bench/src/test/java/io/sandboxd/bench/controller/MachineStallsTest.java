package io.sandboxd.bench.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MachineStallsTest {
    private static final long MS = 1_000_000L;

    @Test
    void readsTheKernelsCpuLists() {
        assertThat(MachineStalls.cpuList("0-1")).containsExactly(0, 1);
        assertThat(MachineStalls.cpuList("3")).containsExactly(3);
        assertThat(MachineStalls.cpuList("0-2,5,7-8")).containsExactly(0, 1, 2, 5, 7, 8);
        assertThatThrownBy(() -> MachineStalls.cpuList("2-1")).hasMessageContaining("not a CPU list: 2-1");
        assertThatThrownBy(() -> MachineStalls.cpuList("1-2-3")).hasMessageContaining("not a CPU list");
        assertThatThrownBy(() -> MachineStalls.cpuList("x")).isInstanceOf(NumberFormatException.class);
    }

    @Test
    void aClaimIsNearAStallFromTheBacklogBeforeItsEventUntilItsStatusWrite() {
        long backlog = MachineStalls.BACKLOG_NANOS;
        BurstFigures.Latency claim = latency(40, 1_000 * MS, 1_040 * MS);
        // ends just inside the backlog window before the event / starts at the status write
        assertThat(near(stall(1_000 * MS - backlog - 5 * MS, 5 * MS), claim)).isEqualTo(1);
        assertThat(near(stall(1_040 * MS, 5 * MS), claim)).isEqualTo(1);
        assertThat(near(stall(1_010 * MS, 5 * MS), claim)).isEqualTo(1);
        // ends before the window / starts after it
        assertThat(near(stall(1_000 * MS - backlog - 6 * MS, 5 * MS), claim)).isZero();
        assertThat(near(stall(1_040 * MS + 1, 5 * MS), claim)).isZero();
    }

    @Test
    void theSlowestClaimsAreThoseAtOrAboveTheP99() {
        List<BurstFigures.Latency> all = new ArrayList<>();
        for (int i = 1; i <= 1000; i++) all.add(latency(i, 0, 0));
        assertThat(MachineStalls.slowest(all))
                .extracting(BurstFigures.Latency::totalMs)
                .containsExactlyInAnyOrder(
                        990.0, 991.0, 992.0, 993.0, 994.0, 995.0, 996.0, 997.0, 998.0, 999.0, 1000.0);
        assertThat(MachineStalls.slowest(List.of())).isEmpty();
    }

    @Test
    void offMeasuresNothingAndSaysWhichOptionWould() {
        try (MachineStalls off = MachineStalls.off()) {
            assertThat(off.method()).isEqualTo("not measured: off (--machine-stalls measures them)");
            assertThat(off.json(0, Long.MAX_VALUE, List.of(latency(1, 0, 1))))
                    .containsExactly(Map.entry("not_measured", "off (--machine-stalls measures them)"));
        }
    }

    /**
     * A meter that cannot run (stopped with SIGSTOP, as a frozen CPU would leave it) reports the
     * time it lost; closing ends every meter. Run as root where taskset and chrt exist (this
     * machine, its CI); anywhere else the figures must say why they are missing.
     */
    @Test
    void aMeterThatCannotRunReportsTheTimeItLostAndNoneOutlivesClose() throws Exception {
        long start = System.nanoTime();
        List<ProcessHandle> meters;
        List<ProcessHandle> before = ProcessHandle.current().children().toList();
        try (MachineStalls stalls = MachineStalls.start()) {
            meters = ProcessHandle.current()
                    .children()
                    .filter(p -> !before.contains(p))
                    .toList();
            if (!canRunRealTime()) {
                assertThat(stalls.method()).startsWith("not measured: ");
                assertThat(stalls.json(start, System.nanoTime(), List.of())).containsOnlyKeys("not_measured");
                return;
            }
            assertThat(stalls.method()).isEqualTo(MachineStalls.METHOD);
            assertThat(meters)
                    .hasSize(MachineStalls.cpuList(MachineStalls.allowedCpus()).size());
            ProcessHandle meter = meters.get(0);
            signal("STOP", meter.pid());
            Thread.sleep(80);
            signal("CONT", meter.pid());
            long deadline = System.nanoTime() + 10_000 * MS;
            while (stalls.between(start, System.nanoTime()).stream().noneMatch(s -> s.nanos() >= 70 * MS)
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            long now = System.nanoTime();
            assertThat(stalls.between(start, now)).anyMatch(s -> s.nanos() >= 70 * MS && s.toNanos() <= now);
            Map<String, Object> json = stalls.json(start, now, List.of(latency(100, start, now)));
            assertThat((int) json.get("count")).isGreaterThanOrEqualTo(1);
            assertThat((double) json.get("longest_ms")).isGreaterThanOrEqualTo(70.0);
            assertThat(json).containsEntry("slowest_claims", 1).containsEntry("slowest_claims_near_a_stall", 1L);
        }
        assertThat(meters).isNotEmpty().noneMatch(ProcessHandle::isAlive);
    }

    private static boolean canRunRealTime() throws Exception {
        return new ProcessBuilder("chrt", "-f", "50", "true")
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start()
                        .waitFor()
                == 0;
    }

    private static void signal(String sig, long pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + sig, Long.toString(pid))
                        .start()
                        .waitFor())
                .isZero();
    }

    private static long near(MachineStalls.Stall s, BurstFigures.Latency claim) {
        return MachineStalls.nearAStall(List.of(s), List.of(claim));
    }

    private static MachineStalls.Stall stall(long from, long nanos) {
        return new MachineStalls.Stall(0, from, nanos);
    }

    private static BurstFigures.Latency latency(double totalMs, long from, long to) {
        return new BurstFigures.Latency(totalMs, totalMs, 0, from, to);
    }
}
