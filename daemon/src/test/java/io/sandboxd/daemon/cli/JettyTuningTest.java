package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JettyTuningTest {
    @Test
    void compressedReferencesBelow32GiBOfHeap() {
        assertThat(JettyTuning.referencesPerCacheLine(64L << 20)).isEqualTo(16);
        assertThat(JettyTuning.referencesPerCacheLine((32L << 30) - 1)).isEqualTo(16);
        assertThat(JettyTuning.referencesPerCacheLine(32L << 30)).isEqualTo(8);
    }

    @Test
    void anExplicitSettingWins() {
        String before = System.getProperty(JettyTuning.REFERENCES_PER_CACHE_LINE);
        try {
            System.setProperty(JettyTuning.REFERENCES_PER_CACHE_LINE, "4");
            JettyTuning.skipPlatformMBeanServer();
            assertThat(System.getProperty(JettyTuning.REFERENCES_PER_CACHE_LINE))
                    .isEqualTo("4");
            System.clearProperty(JettyTuning.REFERENCES_PER_CACHE_LINE);
            JettyTuning.skipPlatformMBeanServer();
            assertThat(System.getProperty(JettyTuning.REFERENCES_PER_CACHE_LINE))
                    .isIn("8", "16");
        } finally {
            if (before == null) {
                System.clearProperty(JettyTuning.REFERENCES_PER_CACHE_LINE);
            } else {
                System.setProperty(JettyTuning.REFERENCES_PER_CACHE_LINE, before);
            }
        }
    }
}
