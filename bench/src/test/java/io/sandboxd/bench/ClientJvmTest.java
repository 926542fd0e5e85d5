package io.sandboxd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClientJvmTest {
    @Test
    void relaunchCommandRunsTheBenchMainWithC1AndSerialGcAndTheSameArguments() {
        List<String> cmd = ClientJvm.command(new String[] {"--quick", "--only", "execute"}, ClientJvm.FOR_CLIENT);
        assertThat(cmd.get(0)).endsWith("/bin/java");
        assertThat(cmd)
                .containsSubsequence(
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-D" + ClientJvm.RELAUNCHED + "=true",
                        "-cp",
                        System.getProperty("java.class.path"),
                        BenchMain.class.getName(),
                        "--quick",
                        "--only",
                        "execute");
        // the surefire JVM's own collector/compiler flags are replaced, not repeated
        assertThat(cmd.stream().filter(a -> a.matches("-XX:[+-]Use\\w+GC"))).containsExactly("-XX:+UseSerialGC");
        assertThat(cmd.stream().filter(a -> a.startsWith("-XX:TieredStopAtLevel")))
                .containsExactly("-XX:TieredStopAtLevel=1");
    }

    @Test
    void theApiStandInsJvmRunsBothCompilersWithShenandoah() {
        List<String> cmd = ClientJvm.command(new String[] {"controller", "--claims", "10"}, ClientJvm.FOR_API_STAND_IN);
        assertThat(cmd)
                .containsSubsequence(
                        "-XX:+UseShenandoahGC",
                        "-D" + ClientJvm.RELAUNCHED + "=true",
                        BenchMain.class.getName(),
                        "controller",
                        "--claims",
                        "10");
        assertThat(cmd.stream().filter(a -> a.matches("-XX:[+-]Use\\w+GC"))).containsExactly("-XX:+UseShenandoahGC");
        // tiered: C2 finishes during the six warm-up rounds and the stand-in then costs less CPU
        assertThat(cmd.stream().filter(a -> a.startsWith("-XX:TieredStopAtLevel")))
                .isEmpty();
    }

    @Test
    void theStandInsCollectorIsTheOneThisJdksJavaStartsWith() {
        assertThat(ClientJvm.starts("-XX:+UseSerialGC")).isTrue();
        assertThat(ClientJvm.starts("-XX:+UseNoSuchCollectorGC")).isFalse();
        assertThat(ClientJvm.forApiStandIn())
                .isEqualTo(
                        ClientJvm.starts("-XX:+UseShenandoahGC")
                                ? ClientJvm.FOR_API_STAND_IN
                                : ClientJvm.FOR_API_STAND_IN_WITHOUT_SHENANDOAH);
    }

    @Test
    void describesTheCompilerAndCollectorItMeasuresWith() {
        assertThat(ClientJvm.describe())
                .containsAnyOf("C1 only", "tiered C1+C2")
                .contains("(");
    }
}
