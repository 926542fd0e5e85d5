package io.sandboxd.reliability.proc;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Real processes: a shell with two background sleeps is found as three descendants of this JVM. */
class ProcessTableTest {
    @Test
    void findsGrandchildrenAndMarkedProcesses() throws Exception {
        String marker = "1234." + (System.nanoTime() % 1_000_000);
        Process sh = new ProcessBuilder("sh", "-c", "sleep " + marker + " & sleep " + marker + " & echo up; wait").start();
        try {
            assertThat(new String(sh.getInputStream().readNBytes(3))).isEqualTo("up\n");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            List<ProcStat> mine;
            do {
                mine = ProcessTable.read().descendantsOf(sh.pid());
            } while (mine.size() < 2 && System.nanoTime() < deadline);
            assertThat(mine).extracting(ProcStat::comm).containsExactly("sleep", "sleep");
            assertThat(ProcessTable.read().descendantsOf(ProcessHandle.current().pid()))
                    .extracting(ProcStat::pid).contains(sh.pid());
            assertThat(ProcessTable.read().liveWithArgument(marker)).hasSize(2);
            assertThat(ProcessTable.read().liveWithArgument(marker.substring(1))).as("whole arguments only").isEmpty();
        } finally {
            sh.descendants().forEach(ProcessHandle::destroyForcibly);
            sh.destroyForcibly();
            sh.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void observerReadsThisJvm() throws IOException {
        DaemonObserver o = new DaemonObserver(ProcessHandle.current().pid());
        ResourceSnapshot s = o.quick();
        assertThat(s.threads()).isGreaterThan(1);
        assertThat(s.fds()).isGreaterThan(2);
        assertThat(s.rssBytes()).isGreaterThan(1 << 20);
    }
}
