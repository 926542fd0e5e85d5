package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.daemon.config.DurableConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The durable-process flags: defaults, their SANDBOXD_* variables, validation. */
class DurableFlagsTest {
    @TempDir
    Path tmp;

    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    Main.Parsed parse(Map<String, String> env, String... args) {
        return Main.parse(
                args,
                env,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void defaultsAndVariables() {
        DurableConfig d = parse(
                        Map.of("SANDBOXD_STATE_DIR", tmp.resolve("s").toString()),
                        "--root-dir",
                        tmp.resolve("r").toString())
                .durable();
        assertThat(d.stateDir()).isEqualTo(tmp.resolve("s"));
        assertThat(d.journalRetention()).isEqualTo(DurableConfig.DEFAULT_RETENTION);
        assertThat(d.journalTotalCap()).isEqualTo(DurableConfig.DEFAULT_TOTAL_CAP);
        assertThat(d.endedRetention()).isEqualTo(Duration.ofHours(1));
        assertThat(d.maxEnded()).isEqualTo(1000);
        assertThat(d.attachHeartbeat()).isEqualTo(Duration.ofSeconds(15));

        d = parse(
                        Map.of(
                                "SANDBOXD_JOURNAL_RETENTION",
                                "65536",
                                "SANDBOXD_MAX_ENDED",
                                "5",
                                "SANDBOXD_ATTACH_HEARTBEAT",
                                "2s",
                                "SANDBOXD_TIMEOUT_GRACE",
                                "1s"),
                        "--root-dir",
                        tmp.resolve("r").toString(),
                        "--state-dir",
                        tmp.resolve("s2").toString(),
                        "--ended-retention",
                        "10m")
                .durable();
        assertThat(d.journalRetention()).isEqualTo(65536);
        assertThat(d.maxEnded()).isEqualTo(5);
        assertThat(d.attachHeartbeat()).isEqualTo(Duration.ofSeconds(2));
        assertThat(d.timeoutGrace()).isEqualTo(Duration.ofSeconds(1));
        assertThat(d.endedRetention()).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void theStateDirMustBeOutsideTheRootAndLimitsSane() {
        Main.Parsed p = parse(
                Map.of(),
                "--root-dir",
                tmp.resolve("r").toString(),
                "--state-dir",
                tmp.resolve("r").resolve("state").toString());
        assertThat(p.exitCode()).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--state-dir").contains("outside the sandbox root");
        assertThat(parse(
                                Map.of(),
                                "--root-dir",
                                tmp.resolve("r").toString(),
                                "--state-dir",
                                tmp.resolve("s").toString(),
                                "--journal-retention",
                                "10")
                        .exitCode())
                .isEqualTo(2);
        assertThat(parse(
                                Map.of(),
                                "--root-dir",
                                tmp.resolve("r").toString(),
                                "--state-dir",
                                tmp.resolve("s").toString(),
                                "--journal-total-cap",
                                "5000")
                        .exitCode())
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--journal-total-cap");
    }
}
