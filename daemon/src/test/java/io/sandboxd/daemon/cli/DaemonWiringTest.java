package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the wiring hands the process core. */
class DaemonWiringTest {
    @Test
    void childrenNeverInheritTheAccessToken() {
        assertThat(Daemon.childEnvironment(Map.of("SANDBOXD_AUTH_TOKEN", "t", "HOME", "/root")))
                .containsOnlyKeys("HOME");
    }
}
