package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.logging.LogFormat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Validated daemon settings (CONTRACT §3). Built by {@link SandboxdCommand} from flags and
 * {@code SANDBOXD_*} variables, or directly by tests.
 *
 * @param rootDir real (symlink-resolved) absolute path of the sandbox root, which exists
 */
public record DaemonConfig(
        String listenHost,
        int grpcPort,
        int restPort,
        Path rootDir,
        String metadataEnvPrefix,
        Duration shutdownTimeout,
        Duration httpIdleTimeout,
        int streamChunkSize,
        int executeOutputLimit,
        int maxProcesses,
        Optional<String> authToken,
        LogFormat logFormat) {

    public static final int DEFAULT_STREAM_CHUNK_SIZE = 256 * 1024;
    public static final int MAX_STREAM_CHUNK_SIZE = 4 * 1024 * 1024;
    public static final int DEFAULT_EXECUTE_OUTPUT_LIMIT = 1024 * 1024;
    public static final int MAX_EXECUTE_OUTPUT_LIMIT = 64 * 1024 * 1024;

    /** Settings for tests: loopback, ephemeral ports (0), defaults elsewhere. */
    public static DaemonConfig forTests(Path rootDir) {
        return new DaemonConfig("127.0.0.1", 0, 0, rootDir, "SANDBOX_",
                Duration.ofSeconds(10), Duration.ofSeconds(60), DEFAULT_STREAM_CHUNK_SIZE,
                DEFAULT_EXECUTE_OUTPUT_LIMIT, 1024, Optional.empty(), LogFormat.TEXT);
    }

    public DaemonConfig withAuthToken(String token) {
        return new DaemonConfig(listenHost, grpcPort, restPort, rootDir, metadataEnvPrefix, shutdownTimeout,
                httpIdleTimeout, streamChunkSize, executeOutputLimit, maxProcesses, Optional.of(token), logFormat);
    }

    public DaemonConfig withLimits(int streamChunkSize, int executeOutputLimit, int maxProcesses) {
        return new DaemonConfig(listenHost, grpcPort, restPort, rootDir, metadataEnvPrefix, shutdownTimeout,
                httpIdleTimeout, streamChunkSize, executeOutputLimit, maxProcesses, authToken, logFormat);
    }

    public DaemonConfig withShutdownTimeout(Duration timeout) {
        return new DaemonConfig(listenHost, grpcPort, restPort, rootDir, metadataEnvPrefix, timeout,
                httpIdleTimeout, streamChunkSize, executeOutputLimit, maxProcesses, authToken, logFormat);
    }

    public DaemonConfig withMetadataEnvPrefix(String prefix) {
        return new DaemonConfig(listenHost, grpcPort, restPort, rootDir, prefix, shutdownTimeout,
                httpIdleTimeout, streamChunkSize, executeOutputLimit, maxProcesses, authToken, logFormat);
    }
}
