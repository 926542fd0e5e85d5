package io.sandboxd.testkit.proc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProcStatusTest {
    @Test
    void parsesTheFieldsAndConvertsKibToBytes() {
        ProcStatus s = ProcStatus.parse("""
                Name:\tsandboxd worker
                State:\tS (sleeping)
                VmHWM:\t  204800 kB
                VmRSS:\t  102400 kB
                RssAnon:\t   51200 kB
                Threads:\t38
                SigIgn:\t0000000000000006
                """);
        assertThat(s).isEqualTo(new ProcStatus("sandboxd worker", 38, 100L << 20, 200L << 20, 50L << 20, 6));
        assertThat(s.ignores(1)).isFalse();
        assertThat(s.ignores(2)).isTrue();
        assertThat(s.ignores(3)).isTrue();
        assertThat(s.ignores(15)).isFalse();
    }

    @Test
    void aZombieHasNoMemoryLines() {
        ProcStatus s = ProcStatus.parse("Name:\tdefunct\nState:\tZ (zombie)\nThreads:\t1\nSigIgn:\t0000000000000000\n");
        assertThat(s.rssBytes()).isZero();
        assertThat(s.threads()).isEqualTo(1);
    }

    @Test
    void readsARealProcessAndItsIgnoredSignals() throws Exception {
        Process ignoring = new ProcessBuilder("sh", "-c", "trap '' INT; exec sleep 60").start();
        // SIGINT reset to default first: a test JVM started as a background job of a
        // non-interactive shell inherits it ignored, and a shell cannot reset such a signal.
        Process plain = new ProcessBuilder(
                        "/usr/bin/python3",
                        "-c",
                        "import os, signal; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp('sleep', ['sleep', '60'])")
                .start();
        try {
            waitForComm(ignoring.pid(), "sleep");
            waitForComm(plain.pid(), "sleep");
            ProcStatus a = ProcStatus.read(ignoring.pid()).orElseThrow();
            ProcStatus b = ProcStatus.read(plain.pid()).orElseThrow();
            assertThat(a.name()).isEqualTo("sleep");
            assertThat(a.ignores(2)).isTrue();
            assertThat(b.ignores(2)).isFalse();
            assertThat(b.threads()).isEqualTo(1);
            assertThat(b.rssBytes()).isPositive();
            assertThat(b.peakRssBytes()).isGreaterThanOrEqualTo(b.rssBytes());
        } finally {
            ignoring.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            plain.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(ProcStatus.read(plain.pid())).isEmpty();
    }

    static void waitForComm(long pid, String comm) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (ProcStat.read(pid).map(s -> s.comm().equals(comm)).orElse(false)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("pid " + pid + " never became " + comm);
    }
}
