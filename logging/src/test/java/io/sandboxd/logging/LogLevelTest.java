package io.sandboxd.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Upstream's --zap-log-level values (controller-runtime's zap flag) onto logback's root level. */
class LogLevelTest {
    @ParameterizedTest
    @CsvSource({
        "debug, DEBUG",
        "DEBUG, DEBUG",
        "' info ', INFO",
        "warn, WARN",
        "error, ERROR",
        "dpanic, ERROR",
        "panic, ERROR",
        "Fatal, ERROR",
        // zap's verbosity integers: n is zap level -n; -1 is debug, below it more verbose still
        "1, DEBUG",
        "2, TRACE",
        "10, TRACE",
        "+2, TRACE",
    })
    void zapValuesMapOntoLogbackLevels(String value, LogLevel expected) {
        assertThat(LogLevel.fromZap(value)).isEqualTo(expected);
    }

    @Test
    void withoutTheFlagTheLevelIsInfo() {
        assertThat(LogLevel.fromZap(null)).isEqualTo(LogLevel.INFO).isEqualTo(LogLevel.DEFAULT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "verbose", "", "1.5", "trace", "99999999999"})
    void aBadValueNamesTheFlagAndWhatItAccepts(String value) {
        assertThatThrownBy(() -> LogLevel.fromZap(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--zap-log-level must be debug, info, warn, error, dpanic, panic, fatal or an integer"
                        + " of 1 or more (got \"" + value + "\")");
    }

    @Test
    void theRootTakesTheLevelAndTheQuietLibrariesFollowAllButInfo() {
        LoggerContext ctx = new LoggerContext();
        try {
            for (LogLevel level : LogLevel.values()) {
                LogSetup.configure(ctx, LogFormat.TEXT, level);
                Level root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel();
                assertThat(root.toString()).isEqualTo(level.name());
                Level fabric8 = ctx.getLogger("io.fabric8").getLevel();
                assertThat(fabric8).as("libraries at " + level).isEqualTo(level == LogLevel.INFO ? Level.WARN : root);
            }
            // java.util.logging (grpc-java) filters by its own levels before the bridge: they follow
            LogSetup.configure(ctx, LogFormat.TEXT, LogLevel.DEBUG);
            assertThat(java.util.logging.Logger.getLogger("").getLevel()).isEqualTo(java.util.logging.Level.FINE);
            LogSetup.configure(ctx, LogFormat.TEXT, LogLevel.INFO);
            assertThat(java.util.logging.Logger.getLogger("").getLevel()).isEqualTo(java.util.logging.Level.INFO);
        } finally {
            ctx.stop();
        }
    }
}
