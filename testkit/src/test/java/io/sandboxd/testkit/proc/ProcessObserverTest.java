package io.sandboxd.testkit.proc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileInputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProcessObserverTest {
    @Test
    void observesASleepExactly() throws Exception {
        Process p = new ProcessBuilder("sleep", "60").start();
        try {
            ProcessObserver o = new ProcessObserver(p.pid());
            ProcStatusTest.waitForComm(p.pid(), "sleep");
            assertThat(o.alive()).isTrue();
            assertThat(o.threads()).isEqualTo(1);
            assertThat(o.fds()).as("stdin, stdout, stderr").isEqualTo(3);
            assertThat(o.cmdline()).containsExactly("sleep", "60");
            assertThat(o.exe().getFileName().toString()).isEqualTo("sleep");
            assertThat(o.isJvm()).isFalse();
            assertThat(o.children()).isEmpty();
            assertThat(o.rssBytes()).isBetween(1L, 64L << 20);
            assertThat(o.privateDirtyBytes()).isBetween(1L, o.rssBytes());
            assertThat(o.stat().ppid()).isEqualTo(ProcessHandle.current().pid());
            ResourceSnapshot s = o.snapshotWithHeap();
            assertThat(s.heapAfterGcBytes()).as("no heap probe of a non-JVM").isEmpty();
            assertThat(s.describe()).contains("threads=1 fds=3").contains("heapAfterGC=n/a");
        } finally {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        ProcessObserver gone = new ProcessObserver(p.pid());
        assertThat(gone.alive()).isFalse();
        assertThatThrownBy(gone::threads)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has gone");
        assertThatThrownBy(gone::fds).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void countsTheFdsThisJvmOpens() throws Exception {
        ProcessObserver me = new ProcessObserver(ProcessHandle.current().pid());
        // Other threads of this JVM (a reaper, a stream pump, class loading opening a jar) may open
        // or close an fd between two counts: two CI runs saw 29 where 28 was expected. So the counts
        // are taken again until no other fd changed in between; a miscount never gets there.
        List<String> seen = new ArrayList<>();
        boolean counted = false;
        for (int i = 0; i < 20 && !counted; i++) {
            int before = me.fds();
            int open;
            try (FileInputStream a = new FileInputStream("/proc/self/stat");
                    FileInputStream b = new FileInputStream("/proc/self/status")) {
                open = me.fds();
            }
            int after = me.fds();
            seen.add(before + " -> " + open + " -> " + after);
            counted = open == before + 2 && after == before;
        }
        assertThat(counted)
                .as("fd counts before -> with two files open -> after: %s", seen)
                .isTrue();
        assertThat(me.isJvm()).isTrue();
        assertThat(me.threads()).isGreaterThan(1);
    }

    @Test
    void bytesWrittenCountsTheProcessAndItsReapedChildren() throws Exception {
        // printf is a builtin of sh: the shell writes 100,000 bytes itself, its child head 500,000
        // (added when sh reaps it); then sh becomes sleep, and the counters survive exec.
        Process p = new ProcessBuilder("sh", "-c", "printf '%100000s' x; head -c 500000 /dev/zero; exec sleep 60")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            ProcStatusTest.waitForComm(p.pid(), "sleep");
            assertThat(new ProcessObserver(p.pid()).bytesWritten()).isBetween(600_000L, 610_000L);
        } finally {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        ProcessObserver me = new ProcessObserver(ProcessHandle.current().pid());
        long before = me.bytesWritten();
        Path f = Path.of(
                System.getProperty("java.io.tmpdir"),
                "observer-" + ProcessHandle.current().pid());
        java.nio.file.Files.write(f, new byte[200_000]);
        java.nio.file.Files.delete(f);
        assertThat(me.bytesWritten() - before).isGreaterThanOrEqualTo(200_000);
    }

    @Test
    void samplerKeepsTheMaxima() throws Exception {
        Process p = new ProcessBuilder("sleep", "60").start();
        try (ResourceSampler s = new ResourceSampler(p.pid(), Duration.ofMillis(5))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (s.samples() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(s.samples()).isGreaterThanOrEqualTo(3);
            assertThat(s.maxThreads()).isEqualTo(1);
            assertThat(s.maxRssBytes()).isPositive();
        } finally {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        try (ResourceSampler none = new ResourceSampler(Integer.MAX_VALUE, Duration.ofMillis(5))) {
            Thread.sleep(50);
            assertThat(none.samples()).isZero();
        }
    }
}
