package io.sandboxd.testkit.proc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HeapProbeTest {
    @Test
    void parsesG1() {
        String info = """
                12345:
                 garbage-first heap   total 262144K, used 10240K [0x00000000f0000000, 0x0000000100000000)
                  region size 1024K, 1 young (1024K), 0 survivors (0K)
                 Metaspace       used 20000K, committed 20480K, reserved 1114112K
                  class space    used 2000K, committed 2048K, reserved 1048576K
                """;
        assertThat(HeapProbe.parseUsedBytes(info)).isEqualTo(OptionalLong.of(10240L * 1024));
    }

    @Test
    void parsesSerialGenerations() {
        String info = """
                 def new generation   total 4928K, used 1000K [0x00000000f0000000, 0x00000000f0550000, 0x00000000f5550000)
                  eden space 4416K,  22% used [0x00000000f0000000, 0x00000000f0000000, 0x00000000f0450000)
                 tenured generation   total 10944K, used 3000K [0x00000000f5550000, 0x00000000f6000000, 0x0000000100000000)
                 Metaspace       used 6000K, committed 6144K, reserved 1056768K
                """;
        assertThat(HeapProbe.parseUsedBytes(info)).isEqualTo(OptionalLong.of(4000L * 1024));
        assertThat(HeapProbe.parseUsedBytes("nothing")).isEmpty();
    }

    @Test
    void measuresAnotherJvm() throws Exception {
        Process other = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx64m",
                        "-XX:+UseSerialGC",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Sleeper.class.getName())
                .start();
        try {
            assertThat(other.getInputStream().read()).isEqualTo('u');
            assertThat(HeapProbe.isJvm(other.pid())).isTrue();
            OptionalLong used = HeapProbe.fromCurrentJdk().usedAfterGc(other.pid());
            assertThat(used).isPresent();
            assertThat(used.getAsLong()).isBetween(1L, 64L << 20);
            assertThat(new ProcessObserver(other.pid()).snapshotWithHeap().heapAfterGcBytes())
                    .isPresent();
        } finally {
            other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void neverSignalsAProcessThatIsNoJvm() throws Exception {
        // A sleep dies of the SIGQUIT that a jcmd attach sends; the probe must not send it.
        Process sleep = new ProcessBuilder("sleep", "60").start();
        try {
            ProcStatusTest.waitForComm(sleep.pid(), "sleep");
            assertThat(HeapProbe.isJvm(sleep.pid())).isFalse();
            assertThat(HeapProbe.fromCurrentJdk().usedAfterGc(sleep.pid())).isEmpty();
            assertThat(sleep.waitFor(1, TimeUnit.SECONDS))
                    .as("sleep still running")
                    .isFalse();
        } finally {
            sleep.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(HeapProbe.isJvm(Integer.MAX_VALUE)).isFalse();
    }

    public static final class Sleeper {
        public static void main(String[] args) throws Exception {
            System.out.print("u");
            System.out.flush();
            Thread.sleep(120_000);
        }
    }
}
