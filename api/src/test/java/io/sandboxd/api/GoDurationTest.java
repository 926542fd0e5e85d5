package io.sandboxd.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GoDurationTest {
    @ParameterizedTest
    @CsvSource({
        "0, 0",
        "10s, 10000000000",
        "500ms, 500000000",
        "1.5s, 1500000000",
        "1m30s, 90000000000",
        "1h2m3s500ms, 3723500000000",
        "250us, 250000",
        "250µs, 250000",
        "7ns, 7",
        "' 60s ', 60000000000",
        "0.1ns, 0"
    })
    void parsesGoSpellings(String text, long nanos) {
        assertThat(GoDuration.parse(text)).isEqualTo(Duration.ofNanos(nanos));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "10", "s", "10x", "-1s", "1s2", "1 s", "1.s", "h1", "9999999999h"})
    void refusesWhatGoRefuses(String text) {
        assertThatThrownBy(() -> GoDuration.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duration \"" + text + "\"");
    }

    @org.junit.jupiter.api.Test
    void refusesNull() {
        assertThatThrownBy(() -> GoDuration.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
