package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.sandboxd.daemon.metrics.Metrics;
import org.junit.jupiter.api.Test;

class StartupPreloaderTest {
    @Test
    void everyWarmedUpClassStillExists() {
        // a renamed class would silently turn into a lost warm-up: fail here instead
        for (String name : StartupPreloader.CLASSES) {
            assertThatCode(() -> Class.forName(name, false, StartupPreloader.class.getClassLoader()))
                    .as(name)
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void warmUpHandsOverAWorkingRegistry() {
        Metrics m = StartupPreloader.start().metrics();
        m.registry().counter("preload_test_total").increment();
        assertThat(m.scrape()).contains("preload_test_total 1.0");
    }

    @Test
    void withoutWarmUpTheRegistryIsBuiltOnDemand() {
        Metrics m = StartupPreloader.none().metrics();
        assertThat(m).isNotNull();
        assertThat(m.scrape()).isNotNull();
    }

    @Test
    void helpAndVersionSkipTheWarmUp() {
        assertThat(Main.wantsHelpOrVersion(new String[] {"--root-dir", "/x", "--help"}))
                .isTrue();
        assertThat(Main.wantsHelpOrVersion(new String[] {"-V"})).isTrue();
        assertThat(Main.wantsHelpOrVersion(new String[] {"--root-dir", "/x"})).isFalse();
    }
}
