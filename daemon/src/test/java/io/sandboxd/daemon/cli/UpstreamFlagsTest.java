package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.logging.LogFormat;
import io.sandboxd.logging.LogLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every flag upstream's sandboxd defines is accepted: honoured, or with one warning saying it has no effect. */
class UpstreamFlagsTest {
    @TempDir
    Path tmp;

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    Main.Parsed parse(Map<String, String> env, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(List.of("--root-dir", tmp.resolve("ws").toString()));
        return Main.parse(
                all.toArray(String[]::new),
                env,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    List<String> errLines() {
        String s = err.toString(StandardCharsets.UTF_8);
        return s.isEmpty() ? List.of() : List.of(s.split("\n"));
    }

    /** The flags upstream's sandboxd has and this daemon honours: accepted silently. */
    @ParameterizedTest
    @CsvSource({
        "--listen-host=127.0.0.1",
        "--grpc-port=19090",
        "--rest-port=18080",
        "--metadata-env-prefix=SANDBOX_",
        "--shutdown-timeout=5s",
        "--http-idle-timeout=30s",
        "--stream-chunk-size=0",
        "--zap-encoder=json",
        "--zap-log-level=debug",
        "--zap-log-level=2",
    })
    void honouredUpstreamFlagIsAcceptedWithoutWarning(String flag) {
        Main.Parsed p = parse(Map.of(), flag);
        assertThat(p.config()).as(errLines().toString()).isNotNull();
        assertThat(errLines()).isEmpty();
    }

    /** Upstream's zap flags with no counterpart: accepted, exactly one warning line naming the flag. */
    @ParameterizedTest
    @CsvSource({
        "--zap-devel, --zap-devel",
        "--zap-devel=false, --zap-devel",
        "--zap-stacktrace-level=panic, --zap-stacktrace-level",
        "--zap-time-encoding=iso8601, --zap-time-encoding",
    })
    void upstreamOnlyFlagIsAcceptedWithOneWarning(String arg, String flag) {
        Main.Parsed p = parse(Map.of(), arg);
        assertThat(p.config()).as(errLines().toString()).isNotNull();
        assertThat(errLines())
                .singleElement()
                .asString()
                .startsWith("sandboxd: warning: " + flag + " has no effect here")
                .doesNotContain("Exception");
    }

    @Test
    void upstreamOnlyFlagsAreListedInTheHelp() {
        assertThat(parse(Map.of(), "--help").exitCode()).isZero();
        String help = out.toString(StandardCharsets.UTF_8);
        for (String flag : List.of(
                "--zap-devel", "--zap-encoder", "--zap-log-level", "--zap-stacktrace-level", "--zap-time-encoding")) {
            assertThat(help).contains(flag);
        }
    }

    @Test
    void zapEncoderChoosesTheLogFormatUnlessLogFormatIsGiven() {
        assertThat(parse(Map.of(), "--zap-encoder", "json").config().logFormat())
                .isEqualTo(LogFormat.JSON);
        assertThat(parse(Map.of(), "--zap-encoder=console").config().logFormat())
                .isEqualTo(LogFormat.TEXT);
        assertThat(parse(Map.of(), "--zap-encoder=json", "--log-format=text")
                        .config()
                        .logFormat())
                .isEqualTo(LogFormat.TEXT);
        assertThat(parse(Map.of("SANDBOXD_LOG_FORMAT", "text"), "--zap-encoder=json")
                        .config()
                        .logFormat())
                .isEqualTo(LogFormat.TEXT);
    }

    @Test
    void badZapEncoderIsAUsageError() {
        Main.Parsed p = parse(Map.of(), "--zap-encoder=yaml");
        assertThat(p.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(errLines())
                .singleElement()
                .asString()
                .contains("--zap-encoder must be json or console (got \"yaml\")");
    }

    @Test
    void zapLogLevelSetsTheRootLevelTheWayZapReadsIt() {
        assertThat(parse(Map.of()).logLevel()).isEqualTo(LogLevel.INFO);
        assertThat(parse(Map.of(), "--zap-log-level=debug").logLevel()).isEqualTo(LogLevel.DEBUG);
        assertThat(parse(Map.of(), "--zap-log-level", "error").logLevel()).isEqualTo(LogLevel.ERROR);
        assertThat(parse(Map.of(), "--zap-log-level=1").logLevel()).isEqualTo(LogLevel.DEBUG);
        assertThat(parse(Map.of(), "--zap-log-level=3").logLevel()).isEqualTo(LogLevel.TRACE);
        // like every daemon flag, also from its SANDBOXD_ variable; the flag wins
        assertThat(parse(Map.of("SANDBOXD_ZAP_LOG_LEVEL", "warn")).logLevel()).isEqualTo(LogLevel.WARN);
        assertThat(parse(Map.of("SANDBOXD_ZAP_LOG_LEVEL", "warn"), "--zap-log-level=info")
                        .logLevel())
                .isEqualTo(LogLevel.INFO);
    }

    @Test
    void badZapLogLevelIsAUsageErrorNamingTheFlagAndItsValues() {
        Main.Parsed p = parse(Map.of(), "--zap-log-level=0", "--zap-devel");
        assertThat(p.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(errLines())
                .singleElement()
                .asString()
                .isEqualTo("sandboxd: --zap-log-level must be debug, info, warn, error, dpanic, panic, fatal or an"
                        + " integer of 1 or more (got \"0\") (see --help)");
    }

    @Test
    void versionPrintsTheVersionAndGitRevision() {
        assertThat(parse(Map.of(), "--version").exitCode()).isZero();
        String first = out.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow();
        assertThat(first)
                .matches("sandboxd, version \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(revision: ([0-9a-f]{12}|unknown)\\)");
        assertThat(BuildInfo.value("revision")).matches("[0-9a-f]{12}");
    }
}
