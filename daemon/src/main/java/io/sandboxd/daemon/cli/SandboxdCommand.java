package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.code.CodeSettings;
import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.process.os.ChildCredentials;
import io.sandboxd.daemon.security.RunAsUser;
import io.sandboxd.logging.LogFormat;
import io.sandboxd.logging.LogLevel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line (runtime-contract §3). Every option also reads a {@code SANDBOXD_*} variable; an
 * explicit flag wins. {@link #toConfig()} validates everything before anything listens.
 */
@Command(
        name = "sandboxd",
        mixinStandardHelpOptions = true,
        versionProvider = SandboxdCommand.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = "KEP-539.2 sandbox runtime daemon: gRPC ProcessService and REST filesystem API.")
public final class SandboxdCommand {
    static final String TOKEN_FILE_VARIABLE = "SANDBOXD_AUTH_TOKEN_FILE";

    @Option(
            names = "--listen-host",
            defaultValue = "0.0.0.0",
            description = "Address both listeners bind (env SANDBOXD_LISTEN_HOST, default ${DEFAULT-VALUE}).")
    String listenHost;

    @Option(
            names = "--grpc-port",
            defaultValue = "9090",
            description = "gRPC ProcessService port (env SANDBOXD_GRPC_PORT, default ${DEFAULT-VALUE}).")
    int grpcPort;

    @Option(
            names = "--rest-port",
            defaultValue = "8080",
            description = "REST API port (env SANDBOXD_REST_PORT, default ${DEFAULT-VALUE}).")
    int restPort;

    @Option(
            names = "--root-dir",
            defaultValue = "/workspace",
            description = "Sandbox root; created if missing (env SANDBOXD_ROOT_DIR, default ${DEFAULT-VALUE}).")
    String rootDir;

    @Option(
            names = "--metadata-env-prefix",
            defaultValue = "SANDBOX_",
            description =
                    "Prefix of variables exposed by /v1/metadata (env SANDBOXD_METADATA_ENV_PREFIX, default ${DEFAULT-VALUE}).")
    String metadataEnvPrefix;

    @Option(
            names = "--shutdown-timeout",
            defaultValue = "10s",
            converter = GoDurationConverter.class,
            description = "Bound on graceful shutdown (env SANDBOXD_SHUTDOWN_TIMEOUT, default ${DEFAULT-VALUE}).")
    Duration shutdownTimeout;

    @Option(
            names = "--http-idle-timeout",
            defaultValue = "60s",
            converter = GoDurationConverter.class,
            description =
                    "Idle keep-alive timeout of REST connections (env SANDBOXD_HTTP_IDLE_TIMEOUT, default ${DEFAULT-VALUE}).")
    Duration httpIdleTimeout;

    @Option(
            names = "--stream-chunk-size",
            defaultValue = "0",
            description = "Largest stdout/stderr chunk of a Start stream in bytes; 0 means "
                    + DaemonConfig.DEFAULT_STREAM_CHUNK_SIZE + " (env SANDBOXD_STREAM_CHUNK_SIZE, max "
                    + DaemonConfig.MAX_STREAM_CHUNK_SIZE + ").")
    int streamChunkSize;

    @Option(
            names = "--execute-output-limit",
            defaultValue = "1048576",
            description =
                    "Bytes of stdout and of stderr kept by Execute, head and tail (env SANDBOXD_EXECUTE_OUTPUT_LIMIT, default ${DEFAULT-VALUE}).")
    int executeOutputLimit;

    @Option(
            names = "--max-processes",
            defaultValue = "1024",
            description =
                    "Cap on live processes; beyond it RESOURCE_EXHAUSTED (env SANDBOXD_MAX_PROCESSES, default ${DEFAULT-VALUE}).")
    int maxProcesses;

    @Option(
            names = "--grpc-max-concurrent-calls",
            defaultValue = "" + DaemonConfig.DEFAULT_GRPC_MAX_CONCURRENT_CALLS,
            description = "Calls one gRPC connection may have open at once; a client queues the rest "
                    + "(env SANDBOXD_GRPC_MAX_CONCURRENT_CALLS, default ${DEFAULT-VALUE}).")
    int grpcMaxConcurrentCalls;

    @Option(
            names = "--run-as-user",
            description = "Run the sandbox's processes, and own the files the API writes, as UID[:GID] with the "
                    + "user's supplementary groups; needs the privilege to switch, e.g. a daemon running as root "
                    + "(env SANDBOXD_RUN_AS_USER). Off: they run as the daemon's own user.")
    String runAsUser;

    @Option(
            names = "--state-dir",
            description = "Daemon state (the output journal of durable processes), outside the sandbox root; "
                    + "emptied at start (env SANDBOXD_STATE_DIR, default /tmp/sandboxd-state-<uid>).")
    String stateDir;

    @Option(
            names = "--journal-retention",
            defaultValue = "8388608",
            description =
                    "Bytes of output retained per stream of a process for replay (env SANDBOXD_JOURNAL_RETENTION, default ${DEFAULT-VALUE}).")
    long journalRetention;

    @Option(
            names = "--journal-total-cap",
            defaultValue = "1073741824",
            description =
                    "Bytes retained by all journals together, oldest dropped first (env SANDBOXD_JOURNAL_TOTAL_CAP, default ${DEFAULT-VALUE}).")
    long journalTotalCap;

    @Option(
            names = "--ended-retention",
            defaultValue = "1h",
            converter = GoDurationConverter.class,
            description =
                    "How long an ended process stays listed and attachable (env SANDBOXD_ENDED_RETENTION, default ${DEFAULT-VALUE}).")
    Duration endedRetention;

    @Option(
            names = "--max-ended",
            defaultValue = "1000",
            description =
                    "Ended processes kept at most, oldest forgotten first (env SANDBOXD_MAX_ENDED, default ${DEFAULT-VALUE}).")
    int maxEnded;

    @Option(
            names = "--timeout-grace",
            defaultValue = "5s",
            converter = GoDurationConverter.class,
            description =
                    "SIGTERM to SIGKILL of a process tree whose server-side timeout fired (env SANDBOXD_TIMEOUT_GRACE, default ${DEFAULT-VALUE}).")
    Duration timeoutGrace;

    @Option(
            names = "--attach-heartbeat",
            defaultValue = "15s",
            converter = GoDurationConverter.class,
            description =
                    "Heartbeat on an attach stream silent this long (env SANDBOXD_ATTACH_HEARTBEAT, default ${DEFAULT-VALUE}).")
    Duration attachHeartbeat;

    @CommandLine.Mixin
    WatchOptions watch = new WatchOptions();

    @Option(
            names = "--code-max-contexts",
            defaultValue = "" + CodeSettings.DEFAULT_MAX_CONTEXTS,
            description = "Code contexts (kernels) at once; beyond it CreateContext is RESOURCE_EXHAUSTED "
                    + "(env SANDBOXD_CODE_MAX_CONTEXTS, default ${DEFAULT-VALUE}).")
    int codeMaxContexts;

    @Option(
            names = "--code-output-limit",
            defaultValue = "" + CodeSettings.DEFAULT_OUTPUT_LIMIT,
            description = "Bytes of outputs one code execution keeps, head and tail, the middle dropped and reported "
                    + "(env SANDBOXD_CODE_OUTPUT_LIMIT, default ${DEFAULT-VALUE}).")
    long codeOutputLimit;

    @Option(
            names = "--code-max-message-size",
            defaultValue = "" + CodeSettings.DEFAULT_MAX_MESSAGE_SIZE,
            description = "Largest kernel message part accepted; a larger one is dropped and reported "
                    + "(env SANDBOXD_CODE_MAX_MESSAGE_SIZE, default ${DEFAULT-VALUE}).")
    long codeMaxMessageSize;

    @Option(
            names = "--code-idle-timeout",
            defaultValue = "30m",
            converter = GoDurationConverter.class,
            description = "A code context unused this long is deleted; 0 keeps them "
                    + "(env SANDBOXD_CODE_IDLE_TIMEOUT, default ${DEFAULT-VALUE}).")
    Duration codeIdleTimeout;

    @Option(
            names = "--code-start-timeout",
            defaultValue = "60s",
            converter = GoDurationConverter.class,
            description = "How long a kernel may take to answer after it was started "
                    + "(env SANDBOXD_CODE_START_TIMEOUT, default ${DEFAULT-VALUE}).")
    Duration codeStartTimeout;

    @Option(
            names = "--code-heartbeat-timeout",
            defaultValue = "5s",
            converter = GoDurationConverter.class,
            description = "A kernel that leaves its heartbeat unanswered this long is dead and killed "
                    + "(env SANDBOXD_CODE_HEARTBEAT_TIMEOUT, default ${DEFAULT-VALUE}).")
    Duration codeHeartbeatTimeout;

    @Option(
            names = "--archive-max-bytes",
            defaultValue = "" + io.sandboxd.daemon.fs.ArchiveLimits.DEFAULT_MAX_BYTES,
            description = "File content one archive upload may hold, uncompressed; beyond it the upload is refused "
                    + "and nothing written (env SANDBOXD_ARCHIVE_MAX_BYTES, default ${DEFAULT-VALUE}).")
    long archiveMaxBytes;

    @Option(
            names = "--archive-max-entries",
            defaultValue = "" + io.sandboxd.daemon.fs.ArchiveLimits.DEFAULT_MAX_ENTRIES,
            description = "Entries one archive upload may hold; beyond it the upload is refused and nothing written "
                    + "(env SANDBOXD_ARCHIVE_MAX_ENTRIES, default ${DEFAULT-VALUE}).")
    long archiveMaxEntries;

    @Option(
            names = "--auth-token-file",
            description = "File holding the bearer token required on every call but health "
                    + "(env SANDBOXD_AUTH_TOKEN_FILE; or the token itself in SANDBOXD_AUTH_TOKEN). Off by default.")
    String authTokenFile;

    @Option(
            names = "--log-format",
            defaultValue = "text",
            description = "Log format of every stderr line: text or json, one object per line"
                    + " (env SANDBOXD_LOG_FORMAT, default ${DEFAULT-VALUE}).")
    String logFormat;

    @Option(
            names = "--zap-encoder",
            description = "Upstream's log encoder flag: json or console, the same as --log-format json or text; "
                    + "--log-format (or its env) wins when both are given.")
    String zapEncoder;

    @Option(
            names = "--zap-log-level",
            paramLabel = "<level>",
            description = "Upstream's log level flag: debug, info, warn or error (dpanic, panic and fatal keep"
                    + " errors only), or zap's verbosity n >= 1 (1 = debug, 2 and more = trace); default info.")
    String zapLogLevel;

    /** Upstream's other flags (its zap logging options), accepted with a warning: see {@link NoEffectFlags}. */
    static final NoEffectFlags UPSTREAM_ONLY = new NoEffectFlags(java.util.List.of(
            new NoEffectFlags.Flag("--zap-devel", true, "the log is one line per request in --log-format"),
            new NoEffectFlags.Flag(
                    "--zap-stacktrace-level", false, "a stack trace is logged only with a library's error"),
            new NoEffectFlags.Flag("--zap-time-encoding", false, "times are always RFC 3339 in UTC")));

    /** Validates and resolves the options. @throws CommandLine.ParameterException on a bad value */
    DaemonConfig toConfig(CommandLine cmd, java.util.Map<String, String> env) {
        checkPort(cmd, "--grpc-port", grpcPort);
        checkPort(cmd, "--rest-port", restPort);
        if (grpcPort == restPort) {
            throw bad(cmd, "--grpc-port and --rest-port must differ (both " + grpcPort + ")");
        }
        if (listenHost == null || listenHost.isBlank()) {
            throw bad(cmd, "--listen-host must not be empty");
        }
        int chunk = streamChunkSize <= 0 ? DaemonConfig.DEFAULT_STREAM_CHUNK_SIZE : streamChunkSize;
        if (chunk > DaemonConfig.MAX_STREAM_CHUNK_SIZE) {
            throw bad(
                    cmd,
                    "--stream-chunk-size must be at most " + DaemonConfig.MAX_STREAM_CHUNK_SIZE + " (got "
                            + streamChunkSize + ")");
        }
        if (executeOutputLimit < 1024 || executeOutputLimit > DaemonConfig.MAX_EXECUTE_OUTPUT_LIMIT) {
            throw bad(
                    cmd,
                    "--execute-output-limit must be in range 1024-" + DaemonConfig.MAX_EXECUTE_OUTPUT_LIMIT + " (got "
                            + executeOutputLimit + ")");
        }
        if (maxProcesses < 1) {
            throw bad(cmd, "--max-processes must be at least 1 (got " + maxProcesses + ")");
        }
        if (shutdownTimeout.isZero() || shutdownTimeout.isNegative()) {
            throw bad(cmd, "--shutdown-timeout must be positive (got " + shutdownTimeout + ")");
        }
        if (httpIdleTimeout.isZero() || httpIdleTimeout.isNegative()) {
            throw bad(cmd, "--http-idle-timeout must be positive (got " + httpIdleTimeout + ")");
        }
        if (grpcMaxConcurrentCalls < 1) {
            throw bad(cmd, "--grpc-max-concurrent-calls must be at least 1 (got " + grpcMaxConcurrentCalls + ")");
        }
        ChildCredentials runAs = runAs(cmd);
        String prefix = metadataEnvPrefix == null || metadataEnvPrefix.isEmpty() ? "SANDBOX_" : metadataEnvPrefix;
        LogFormat format = logFormat(cmd, env);
        return new DaemonConfig(
                listenHost,
                grpcPort,
                restPort,
                prepareRoot(cmd),
                prefix,
                shutdownTimeout,
                httpIdleTimeout,
                chunk,
                executeOutputLimit,
                maxProcesses,
                readToken(cmd, env),
                format,
                grpcMaxConcurrentCalls,
                runAs);
    }

    private LogFormat logFormat(CommandLine cmd, java.util.Map<String, String> env) {
        boolean formatGiven = cmd.getParseResult().hasMatchedOption("--log-format")
                || env.containsKey(EnvDefaults.variableFor("--log-format"));
        try {
            return LogFormat.choose(logFormat, formatGiven, zapEncoder);
        } catch (IllegalArgumentException e) {
            throw bad(cmd, e.getMessage());
        }
    }

    /** --zap-log-level as the root log level (info without it). */
    LogLevel logLevel(CommandLine cmd) {
        try {
            return LogLevel.fromZap(zapLogLevel);
        } catch (IllegalArgumentException e) {
            throw bad(cmd, e.getMessage());
        }
    }

    private ChildCredentials runAs(CommandLine cmd) {
        if (runAsUser == null) {
            return ChildCredentials.INHERIT;
        }
        try {
            ChildCredentials c = RunAsUser.parse(runAsUser);
            c.checkSwitchable();
            return c;
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw bad(cmd, "--run-as-user \"" + runAsUser + "\": " + e.getMessage());
        }
    }

    /** The durable-process settings; {@code rootDir} is the validated sandbox root, which must not hold the state. */
    io.sandboxd.daemon.config.DurableConfig toDurableConfig(CommandLine cmd, Path rootDir) {
        if (stateDir != null && stateDir.isBlank()) {
            throw bad(cmd, "--state-dir must not be empty");
        }
        Path state = (stateDir == null ? io.sandboxd.daemon.config.DurableConfig.defaultStateDir() : Path.of(stateDir))
                .toAbsolutePath()
                .normalize();
        if (state.startsWith(rootDir) || rootDir.startsWith(state)) {
            throw bad(cmd, "--state-dir \"" + stateDir + "\" must be outside the sandbox root " + rootDir);
        }
        if (journalRetention < 4096) {
            throw bad(cmd, "--journal-retention must be at least 4096 (got " + journalRetention + ")");
        }
        if (journalTotalCap < journalRetention) {
            throw bad(cmd, "--journal-total-cap must be at least --journal-retention (got " + journalTotalCap + ")");
        }
        if (maxEnded < 0) {
            throw bad(cmd, "--max-ended must not be negative (got " + maxEnded + ")");
        }
        for (Duration d : new Duration[] {endedRetention, timeoutGrace, attachHeartbeat}) {
            if (d.isNegative() || d.isZero()) {
                throw bad(
                        cmd,
                        "--ended-retention, --timeout-grace and --attach-heartbeat must be positive (got " + d + ")");
            }
        }
        try {
            Files.createDirectories(state);
        } catch (IOException | SecurityException e) {
            throw bad(cmd, "--state-dir \"" + state + "\": cannot create it");
        }
        if (!Files.isDirectory(state) || !Files.isWritable(state)) {
            throw bad(cmd, "--state-dir \"" + state + "\" is not a writable directory for this user");
        }
        return new io.sandboxd.daemon.config.DurableConfig(
                state, journalRetention, journalTotalCap, endedRetention, maxEnded, timeoutGrace, attachHeartbeat);
    }

    /** The code-context limits (issue 20). */
    CodeSettings toCodeSettings(CommandLine cmd) {
        if (codeMaxContexts < 0) {
            throw bad(cmd, "--code-max-contexts must not be negative (got " + codeMaxContexts + ")");
        }
        if (codeOutputLimit < 1024) {
            throw bad(cmd, "--code-output-limit must be at least 1024 (got " + codeOutputLimit + ")");
        }
        if (codeMaxMessageSize < 1024 || codeMaxMessageSize > Integer.MAX_VALUE) {
            throw bad(
                    cmd,
                    "--code-max-message-size must be in range 1024-" + Integer.MAX_VALUE + " (got " + codeMaxMessageSize
                            + ")");
        }
        if (codeIdleTimeout.isNegative()) {
            throw bad(cmd, "--code-idle-timeout must not be negative (got " + codeIdleTimeout + ")");
        }
        for (Duration d : new Duration[] {codeStartTimeout, codeHeartbeatTimeout}) {
            if (d.isNegative() || d.isZero()) {
                throw bad(cmd, "--code-start-timeout and --code-heartbeat-timeout must be positive (got " + d + ")");
            }
        }
        return new CodeSettings(
                codeMaxContexts,
                codeOutputLimit,
                codeMaxMessageSize,
                codeIdleTimeout,
                codeStartTimeout,
                codeHeartbeatTimeout);
    }

    /** The limits of archive uploads (issue 19, runtime-contract §4.3). */
    io.sandboxd.daemon.fs.ArchiveLimits toArchiveLimits(CommandLine cmd) {
        if (archiveMaxBytes < 0) {
            throw bad(cmd, "--archive-max-bytes must not be negative (got " + archiveMaxBytes + ")");
        }
        if (archiveMaxEntries < 1) {
            throw bad(cmd, "--archive-max-entries must be at least 1 (got " + archiveMaxEntries + ")");
        }
        return new io.sandboxd.daemon.fs.ArchiveLimits(archiveMaxBytes, archiveMaxEntries);
    }

    private Path prepareRoot(CommandLine cmd) {
        if (rootDir == null || rootDir.isBlank()) {
            throw bad(cmd, "--root-dir must not be empty: refusing to default to \"/\"");
        }
        Path root = Path.of(rootDir).toAbsolutePath().normalize();
        try {
            Files.createDirectories(root);
            Path real = root.toRealPath();
            if (!Files.isDirectory(real)) {
                throw bad(cmd, "root dir \"" + rootDir + "\" is not a directory");
            }
            if (!Files.isWritable(real)) {
                throw bad(cmd, "root dir \"" + rootDir + "\" is not writable");
            }
            return real;
        } catch (java.nio.file.FileAlreadyExistsException e) {
            throw bad(cmd, "root dir \"" + rootDir + "\" is not a directory");
        } catch (IOException | SecurityException e) {
            throw bad(cmd, "root dir \"" + rootDir + "\": cannot create it: " + StartFailure.io(e));
        }
    }

    /**
     * The access token, from the file (flag or {@code SANDBOXD_AUTH_TOKEN_FILE}) or else from
     * {@code SANDBOXD_AUTH_TOKEN}. Auth never fails open: a source that is given but blank (an empty
     * path, an empty or whitespace-only file or variable, as an empty or optional Kubernetes Secret
     * key produces) refuses to start. Only giving no token at all runs without auth.
     */
    private Optional<String> readToken(CommandLine cmd, java.util.Map<String, String> env) {
        String file = authTokenFile;
        if (file == null && env.containsKey(TOKEN_FILE_VARIABLE)) {
            file = env.get(TOKEN_FILE_VARIABLE); // EnvDefaults skips empty values; here empty is an error
        }
        if (file != null) {
            if (file.isBlank()) {
                throw bad(
                        cmd,
                        "--auth-token-file (or " + TOKEN_FILE_VARIABLE + ") is set but empty: "
                                + "refusing to start without auth");
            }
            String token;
            try {
                token = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
            } catch (IOException | java.nio.file.InvalidPathException e) {
                throw bad(cmd, "--auth-token-file \"" + file + "\" cannot be read");
            }
            if (token.isEmpty()) {
                throw bad(cmd, "--auth-token-file \"" + file + "\" is empty");
            }
            return Optional.of(token);
        }
        String fromEnv = env.get(Daemon.AUTH_TOKEN_VARIABLE);
        if (fromEnv == null) {
            return Optional.empty();
        }
        if (fromEnv.isBlank()) {
            throw bad(cmd, Daemon.AUTH_TOKEN_VARIABLE + " is set but blank: refusing to start without auth");
        }
        return Optional.of(fromEnv.strip());
    }

    private static void checkPort(CommandLine cmd, String flag, int port) {
        if (port < 1 || port > 65535) {
            throw bad(cmd, flag + " must be in range 1-65535 (got " + port + ")");
        }
    }

    private static CommandLine.ParameterException bad(CommandLine cmd, String message) {
        return new CommandLine.ParameterException(cmd, message);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "sandboxd, version " + BuildInfo.value("version") + " (revision: " + BuildInfo.value("revision") + ")",
                "  java version:     " + System.getProperty("java.version"),
                "  platform:         " + System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT) + "/"
                        + System.getProperty("os.arch")
            };
        }
    }
}
