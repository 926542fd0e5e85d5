package io.sandboxd.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** --log-format against upstream's --zap-encoder: the encoder only when the format was not given. */
class LogFormatTest {
    @Test
    void zapEncoderCountsOnlyWithoutAnExplicitFormat() {
        assertThat(LogFormat.choose("text", false, "json")).isEqualTo(LogFormat.JSON);
        assertThat(LogFormat.choose("json", false, "console")).isEqualTo(LogFormat.TEXT);
        assertThat(LogFormat.choose("text", true, "json")).isEqualTo(LogFormat.TEXT);
        assertThat(LogFormat.choose(" JSON ", true, null)).isEqualTo(LogFormat.JSON);
        assertThat(LogFormat.choose("text", false, null)).isEqualTo(LogFormat.TEXT);
    }

    @Test
    void aBadValueNamesItsFlagAndTheAcceptedValues() {
        assertThatThrownBy(() -> LogFormat.choose("text", false, "yaml"))
                .hasMessage("--zap-encoder must be json or console (got \"yaml\")");
        assertThatThrownBy(() -> LogFormat.choose("xml", true, "json"))
                .hasMessage("--log-format must be text or json (got \"xml\")");
    }
}
