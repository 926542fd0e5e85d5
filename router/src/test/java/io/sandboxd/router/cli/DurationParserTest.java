package io.sandboxd.router.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.router.proxy.RouterConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationParserTest {
    @Test
    void forms() {
        assertThat(DurationParser.parse("180")).isEqualTo(Duration.ofSeconds(180));
        assertThat(DurationParser.parse("180s")).isEqualTo(Duration.ofSeconds(180));
        assertThat(DurationParser.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationParser.parse("3m")).isEqualTo(Duration.ofMinutes(3));
        assertThat(DurationParser.parse("1h")).isEqualTo(Duration.ofHours(1));
        for (String bad : new String[] {"", "x", "0", "-5s", "1.5s"}) {
            assertThatThrownBy(() -> DurationParser.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void retryDelaysDoubleAndAreCapped() {
        RouterConfig c = RouterConfig.defaults().withRetries(5, Duration.ofMillis(200), Duration.ofMillis(700));
        assertThat(c.retryDelay(1)).isEqualTo(Duration.ofMillis(200));
        assertThat(c.retryDelay(2)).isEqualTo(Duration.ofMillis(400));
        assertThat(c.retryDelay(3)).isEqualTo(Duration.ofMillis(700));
        assertThat(c.retryDelay(40)).isEqualTo(Duration.ofMillis(700));
    }

    @Test
    void defaultsMatchTheSpec() {
        RouterConfig d = RouterConfig.defaults();
        assertThat(d.proxyTimeout()).isEqualTo(Duration.ofSeconds(180));
        assertThat(d.port()).isEqualTo(8080);
        assertThat(d.maxRetries()).isEqualTo(3);
        assertThat(d.clusterDomain()).isEqualTo("cluster.local");
    }
}
