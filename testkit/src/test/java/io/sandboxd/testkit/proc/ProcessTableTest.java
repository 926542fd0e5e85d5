package io.sandboxd.testkit.proc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Real processes: a shell with two background sleeps, found as its children and by their marker. */
class ProcessTableTest {
    @Test
    void findsChildrenGrandchildrenSessionMembersAndMarkedProcesses() throws Exception {
        String marker = "1234." + (System.nanoTime() % 1_000_000);
        Process sh = new ProcessBuilder(
                        "setsid", "sh", "-c", "sleep " + marker + " & sleep " + marker + " & echo up; wait")
                .start();
        try {
            assertThat(new String(sh.getInputStream().readNBytes(3))).isEqualTo("up\n");
            // A background child is a forked sh until it has exec'd sleep: wait for both.
            io.sandboxd.testkit.Poll.await(
                    java.time.Duration.ofSeconds(20),
                    () -> ProcessTable.read().liveWithArgument(marker).size() == 2,
                    () -> "two sleeps");
            ProcessTable t = ProcessTable.read();
            ProcStat shell = t.get(sh.pid())
                    .filter(s -> s.comm().equals("sh"))
                    .or(() -> t.childrenOf(sh.pid()).stream()
                            .filter(s -> s.comm().equals("sh"))
                            .findFirst())
                    .orElseThrow();
            List<ProcStat> kids = t.childrenOf(shell.pid());
            assertThat(kids).extracting(ProcStat::comm).containsExactlyInAnyOrder("sleep", "sleep");
            assertThat(t.descendantsOf(ProcessHandle.current().pid()))
                    .extracting(ProcStat::pid)
                    .contains(sh.pid())
                    .containsAll(kids.stream().map(ProcStat::pid).toList());
            assertThat(t.liveInSession(shell.session()))
                    .extracting(ProcStat::comm)
                    .containsExactlyInAnyOrder("sh", "sleep", "sleep");
            assertThat(t.liveWithArgument(marker)).hasSize(2);
            assertThat(t.liveWithArgument(marker.substring(1)))
                    .as("whole arguments only")
                    .isEmpty();

            ProcessTable.killAllWithArgument(marker);
            assertThat(sh.waitFor(10, TimeUnit.SECONDS))
                    .as("sh's wait returns once both sleeps died")
                    .isTrue();
            assertThat(ProcessTable.read().liveWithArgument(marker)).isEmpty();
        } finally {
            sh.descendants().forEach(ProcessHandle::destroyForcibly);
            sh.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anUnreapedChildIsAZombieDescendant() throws Exception {
        // sh execs sleep 30 after forking a child that exits at once: nobody reaps it while sleep runs.
        Process p = new ProcessBuilder("sh", "-c", "true & exec sleep 30").start();
        try {
            ProcStatusTest.waitForComm(p.pid(), "sleep");
            ProcessObserver o = new ProcessObserver(p.pid());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (o.snapshot().zombies() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            ResourceSnapshot s = o.snapshot();
            assertThat(s.zombies()).isEqualTo(1);
            assertThat(s.liveDescendants()).isZero();
            assertThat(o.descendants()).singleElement().satisfies(z -> assertThat(z.zombie())
                    .isTrue());
        } finally {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
