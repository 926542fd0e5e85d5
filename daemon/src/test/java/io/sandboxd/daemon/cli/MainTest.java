package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.logging.LogFormat;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** runtime-contract §3 flags: defaults, SANDBOXD_* variables, flag precedence, one-line errors with exit 2. */
class MainTest {
    @TempDir
    Path tmp;

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    Main.Parsed parse(Map<String, String> env, String... args) {
        return Main.parse(
                args,
                env,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    String errText() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void nettyDiagnosticsAreOffByDefaultAndAnOperatorSettingWins() {
        String jfr = System.getProperty("io.netty.jfr.enabled");
        String leak = System.getProperty("io.netty.leakDetection.level");
        try {
            System.clearProperty("io.netty.jfr.enabled");
            System.setProperty("io.netty.leakDetection.level", "paranoid");
            Main.defaultSystemProperties();
            assertThat(System.getProperty("io.netty.jfr.enabled")).isEqualTo("false");
            assertThat(System.getProperty("io.netty.leakDetection.level")).isEqualTo("paranoid");
            System.clearProperty("io.netty.leakDetection.level");
            Main.defaultSystemProperties();
            assertThat(System.getProperty("io.netty.leakDetection.level")).isEqualTo("disabled");
        } finally {
            restore("io.netty.jfr.enabled", jfr);
            restore("io.netty.leakDetection.level", leak);
        }
    }

    @Test
    void nettyBuffersAreUnpooledByDefaultAndAnOperatorSettingWins() {
        String type = System.getProperty("io.netty.allocator.type");
        try {
            System.clearProperty("io.netty.allocator.type");
            Main.defaultSystemProperties();
            assertThat(System.getProperty("io.netty.allocator.type")).isEqualTo("unpooled");
            System.setProperty("io.netty.allocator.type", "adaptive");
            Main.defaultSystemProperties();
            assertThat(System.getProperty("io.netty.allocator.type")).isEqualTo("adaptive");
        } finally {
            restore("io.netty.allocator.type", type);
        }
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }

    @Test
    void defaults() throws Exception {
        Main.Parsed p = parse(Map.of(), "--root-dir", tmp.resolve("ws").toString());
        DaemonConfig c = p.config();
        assertThat(c.listenHost()).isEqualTo("0.0.0.0");
        assertThat(c.grpcPort()).isEqualTo(9090);
        assertThat(c.restPort()).isEqualTo(8080);
        assertThat(c.rootDir()).isEqualTo(tmp.toRealPath().resolve("ws"));
        assertThat(c.rootDir()).isDirectory();
        assertThat(c.metadataEnvPrefix()).isEqualTo("SANDBOX_");
        assertThat(c.shutdownTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.httpIdleTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.streamChunkSize()).isEqualTo(DaemonConfig.DEFAULT_STREAM_CHUNK_SIZE);
        assertThat(c.authToken()).isEmpty();
        assertThat(c.logFormat()).isEqualTo(LogFormat.TEXT);
        assertThat(c.grpcMaxConcurrentCalls()).isEqualTo(1024);
        assertThat(c.runAs().inherits()).isTrue();
    }

    @Test
    void runAsUserResolvesGroupsAndEnvironmentSetsIt() throws Exception {
        // the tests run as root, which may switch; nobody's groups come from the user database
        DaemonConfig c = parse(
                        Map.of("SANDBOXD_RUN_AS_USER", "65534", "SANDBOXD_GRPC_MAX_CONCURRENT_CALLS", "7"),
                        "--root-dir",
                        tmp.resolve("r").toString())
                .config();
        assertThat(c.runAs().uid()).isEqualTo(65534);
        assertThat(c.runAs().gid()).isEqualTo(65534); // nobody's primary group
        assertThat(c.runAs().groups()).contains(65534);
        assertThat(c.grpcMaxConcurrentCalls()).isEqualTo(7);
        c = parse(
                        Map.of(),
                        "--run-as-user",
                        "4242:4343",
                        "--root-dir",
                        tmp.resolve("r").toString())
                .config();
        assertThat(c.runAs().gid()).isEqualTo(4343);
        assertThat(c.runAs().groups()).containsExactly(4343); // no such user: the given group only
    }

    @Test
    void theWatchHeartbeatFollowsAShortIdleTimeoutUnlessGivenAndAGivenOneIsChecked() {
        Main.Parsed p = parse(Map.of(), "--root-dir", tmp.toString(), "--http-idle-timeout", "500ms");
        assertThat(p.watch()).as(errText()).isNotNull();
        assertThat(p.watch().heartbeat()).isEqualTo(Duration.ofMillis(250));
        assertThat(parse(Map.of(), "--root-dir", tmp.toString()).watch().heartbeat())
                .isEqualTo(Duration.ofSeconds(15));
        Main.Parsed bad = parse(
                Map.of("SANDBOXD_WATCH_HEARTBEAT", "15s"),
                "--root-dir",
                tmp.toString(),
                "--http-idle-timeout",
                "500ms");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(errText())
                .contains("--watch-heartbeat must be at least 100ms and shorter than --http-idle-timeout"
                        + " (got 15000ms with --http-idle-timeout 500ms)");
    }

    @Test
    void environmentVariablesAndFlagPrecedence() throws Exception {
        Path token = Files.writeString(tmp.resolve("tok"), "  file-token\n");
        Map<String, String> env = new HashMap<>();
        env.put("SANDBOXD_GRPC_PORT", "7000");
        env.put("SANDBOXD_REST_PORT", "7001");
        env.put("SANDBOXD_LISTEN_HOST", "127.0.0.1");
        env.put("SANDBOXD_ROOT_DIR", tmp.resolve("envroot").toString());
        env.put("SANDBOXD_SHUTDOWN_TIMEOUT", "1m30s");
        env.put("SANDBOXD_HTTP_IDLE_TIMEOUT", "500ms");
        env.put("SANDBOXD_METADATA_ENV_PREFIX", "META_");
        env.put("SANDBOXD_LOG_FORMAT", "json");
        env.put("SANDBOXD_AUTH_TOKEN_FILE", token.toString());
        Main.Parsed parsed = parse(env);
        assertThat(parsed.config()).as(errText()).isNotNull();
        DaemonConfig c = parsed.config();
        assertThat(c.grpcPort()).isEqualTo(7000);
        assertThat(c.restPort()).isEqualTo(7001);
        assertThat(c.listenHost()).isEqualTo("127.0.0.1");
        assertThat(c.rootDir()).isEqualTo(tmp.toRealPath().resolve("envroot"));
        assertThat(c.shutdownTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(c.httpIdleTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.metadataEnvPrefix()).isEqualTo("META_");
        assertThat(c.logFormat()).isEqualTo(LogFormat.JSON);
        assertThat(c.authToken()).contains("file-token");

        c = parse(
                        env,
                        "--grpc-port",
                        "7100",
                        "--root-dir",
                        tmp.resolve("flagroot").toString(),
                        "--log-format",
                        "text")
                .config();
        assertThat(c.grpcPort()).isEqualTo(7100);
        assertThat(c.restPort()).isEqualTo(7001);
        assertThat(c.rootDir()).isEqualTo(tmp.toRealPath().resolve("flagroot"));
        assertThat(c.logFormat()).isEqualTo(LogFormat.TEXT);

        c = parse(Map.of("SANDBOXD_AUTH_TOKEN", "env-token", "SANDBOXD_ROOT_DIR", tmp.toString()))
                .config();
        assertThat(c.authToken()).contains("env-token");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--grpc-port 0|--grpc-port must be in range 1-65535 (got 0)",
                "--rest-port 70000|--rest-port must be in range 1-65535 (got 70000)",
                "--grpc-port 8080|--grpc-port and --rest-port must differ (both 8080)",
                "--grpc-port abc|--grpc-port",
                "--shutdown-timeout 10|invalid duration",
                "--shutdown-timeout 0|--shutdown-timeout must be positive",
                "--stream-chunk-size 99999999|--stream-chunk-size must be at most",
                "--log-format xml|--log-format must be text or json",
                "--no-such-flag|Unknown option",
                "--auth-token-file /nonexistent/tok|cannot be read",
                "--grpc-max-concurrent-calls 0|--grpc-max-concurrent-calls must be at least 1 (got 0)",
                "--run-as-user nobody|--run-as-user \"nobody\": UID must be a number",
                "--run-as-user 65534:x|GID must be a number",
            })
    void badValuesGiveOneLineAndExit2(String args, String expected) {
        String[] a = (args + " --root-dir " + tmp.resolve("r")).split(" ");
        Main.Parsed p = parse(Map.of(), a);
        assertThat(p.exitCode()).isEqualTo(2);
        assertThat(p.config()).isNull();
        assertThat(errText()).contains(expected).startsWith("sandboxd: ");
        assertThat(errText().strip().lines()).hasSize(1);
    }

    /** Auth never fails open: every way of giving a token refuses a blank one (issue 16). */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "SANDBOXD_AUTH_TOKEN|''",
                "SANDBOXD_AUTH_TOKEN|'   '",
                "SANDBOXD_AUTH_TOKEN|'\t'",
                "SANDBOXD_AUTH_TOKEN_FILE|''",
                "SANDBOXD_AUTH_TOKEN_FILE|'  '",
            })
    void blankTokenInTheEnvironmentRefusesToStart(String variable, String value) {
        Main.Parsed p = parse(
                Map.of(variable, value.replace("\\t", "\t")),
                "--root-dir",
                tmp.resolve("r").toString());
        assertThat(p.exitCode()).isEqualTo(2);
        assertThat(p.config()).isNull();
        assertThat(errText()).startsWith("sandboxd: ").contains("refusing to start without auth");
        assertThat(errText().strip().lines()).hasSize(1);
    }

    @Test
    void blankTokenFileOrFlagRefusesToStart() throws Exception {
        Path blank = Files.writeString(tmp.resolve("blank"), " \n\t\n");
        for (String[] args : new String[][] {
            {"--auth-token-file", ""}, {"--auth-token-file", "  "}, {"--auth-token-file", blank.toString()}
        }) {
            err.reset();
            Main.Parsed p = parse(
                    Map.of(), args[0], args[1], "--root-dir", tmp.resolve("r").toString());
            assertThat(p.exitCode()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(errText().strip().lines()).hasSize(1);
        }
        // the flag wins over a good variable, and is still refused when blank
        assertThat(parse(
                                Map.of("SANDBOXD_AUTH_TOKEN", "good"),
                                "--auth-token-file",
                                "",
                                "--root-dir",
                                tmp.resolve("r").toString())
                        .exitCode())
                .isEqualTo(2);
        // no token given at all: auth off, the only way to get it
        assertThat(parse(Map.of(), "--root-dir", tmp.resolve("r").toString())
                        .config()
                        .authToken())
                .isEmpty();
    }

    @Test
    void badEnvironmentValueExits2() {
        Main.Parsed p = parse(Map.of("SANDBOXD_REST_PORT", "-1"), "--root-dir", tmp.toString());
        assertThat(p.exitCode()).isEqualTo(2);
        assertThat(errText()).contains("--rest-port");
    }

    @Test
    void rootDirThatIsAFileOrUnwritableExits2() throws Exception {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertThat(parse(Map.of(), "--root-dir", file.toString()).exitCode()).isEqualTo(2);
        assertThat(errText()).contains("is not a directory");
        assertThat(parse(Map.of(), "--root-dir", file.resolve("sub").toString()).exitCode())
                .isEqualTo(2);
        assertThat(parse(Map.of(), "--root-dir", "").exitCode()).isEqualTo(2);
    }

    @Test
    void versionAndHelpExit0() {
        Main.Parsed p = parse(Map.of(), "--version");
        assertThat(p.exitCode()).isZero();
        assertThat(p.config()).isNull();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("sandboxd, version ");
        out.reset();
        assertThat(parse(Map.of(), "--help").exitCode()).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--root-dir").contains("SANDBOXD_ROOT_DIR");
    }

    @Test
    void goDurations() {
        assertThat(io.sandboxd.api.GoDuration.parse("1h2m3s")).isEqualTo(Duration.ofSeconds(3723));
        assertThat(io.sandboxd.api.GoDuration.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(io.sandboxd.api.GoDuration.parse("0")).isEqualTo(Duration.ZERO);
    }
}
