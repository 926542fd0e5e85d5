package io.sandboxd.reliability.soak;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GoDurationTest {
    @Test
    void parsesGoStyle() {
        assertThat(GoDuration.parse("60s")).isEqualTo(Duration.ofSeconds(60));
        assertThat(GoDuration.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(GoDuration.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(GoDuration.parse("1h2m3s500ms")).isEqualTo(Duration.ofMillis(3_723_500));
    }

    @Test
    void rejectsNonsense() {
        for (String bad : new String[] {"", "10", "m", "10x", "1m 2s", "-5s"}) {
            assertThatThrownBy(() -> GoDuration.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
