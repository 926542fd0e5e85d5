package io.sandboxd.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FreePortsTest {
    @Test
    void picksDistinctPortsThatCanBeBound() throws Exception {
        int[] ports = FreePorts.pick(5);
        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(5);
        for (int p : ports) {
            assertThat(p).isBetween(1024, 65535);
            try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
                assertThat(s.getLocalPort()).isEqualTo(p);
            }
        }
    }

    @Test
    void pollReturnsAsSoonAsTheConditionHoldsAndFalseAtTheDeadline() {
        long t = System.nanoTime();
        int[] calls = {0};
        assertThat(Poll.until(Duration.ofSeconds(10), () -> ++calls[0] == 3)).isTrue();
        assertThat(calls[0]).isEqualTo(3);
        assertThat(Poll.until(Duration.ofMillis(200), () -> false)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - t)).isBetween(Duration.ofMillis(200), Duration.ofSeconds(5));
    }
}
