package io.sandboxd.daemon.config;

import io.sandboxd.daemon.process.os.ChildCredentials;
import io.sandboxd.logging.LogFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Validated daemon settings (runtime-contract §3). Built by the command line from flags and
 * {@code SANDBOXD_*} variables; read by the wiring and both listeners.
 *
 * @param rootDir real (symlink-resolved) absolute path of the sandbox root, which exists
 * @param grpcMaxConcurrentCalls calls one gRPC connection may have open at once
 * @param runAs   who the sandbox's processes (and the files the API creates) belong to
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
        LogFormat logFormat,
        int grpcMaxConcurrentCalls,
        ChildCredentials runAs) {

    public static final int DEFAULT_STREAM_CHUNK_SIZE = 256 * 1024;
    public static final int MAX_STREAM_CHUNK_SIZE = 4 * 1024 * 1024;
    public static final int MAX_EXECUTE_OUTPUT_LIMIT = 64 * 1024 * 1024;
    /** As many as --max-processes allows Start streams by default; beyond it a client queues calls on its side. */
    public static final int DEFAULT_GRPC_MAX_CONCURRENT_CALLS = 1024;
}
