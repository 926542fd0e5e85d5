package io.sandboxd.daemon.config;

import io.sandboxd.daemon.logging.RequestLog;
import io.sandboxd.daemon.process.os.ChildCredentials;
import io.sandboxd.logging.LogFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Daemon settings for tests: loopback, ephemeral ports (0), defaults elsewhere, and variations. */
public final class TestConfig {
    private TestConfig() {}

    public static DaemonConfig forRoot(Path rootDir) {
        return new DaemonConfig(
                "127.0.0.1",
                0,
                0,
                rootDir,
                "SANDBOX_",
                Duration.ofSeconds(10),
                Duration.ofSeconds(60),
                DaemonConfig.DEFAULT_STREAM_CHUNK_SIZE,
                1024 * 1024,
                1024,
                Optional.empty(),
                LogFormat.TEXT,
                DaemonConfig.DEFAULT_GRPC_MAX_CONCURRENT_CALLS,
                ChildCredentials.INHERIT);
    }

    public static DaemonConfig withPorts(DaemonConfig c, int grpcPort, int restPort) {
        return new DaemonConfig(
                c.listenHost(),
                grpcPort,
                restPort,
                c.rootDir(),
                c.metadataEnvPrefix(),
                c.shutdownTimeout(),
                c.httpIdleTimeout(),
                c.streamChunkSize(),
                c.executeOutputLimit(),
                c.maxProcesses(),
                c.authToken(),
                c.logFormat(),
                c.grpcMaxConcurrentCalls(),
                c.runAs());
    }

    public static DaemonConfig withAuthToken(DaemonConfig c, String token) {
        return new DaemonConfig(
                c.listenHost(),
                c.grpcPort(),
                c.restPort(),
                c.rootDir(),
                c.metadataEnvPrefix(),
                c.shutdownTimeout(),
                c.httpIdleTimeout(),
                c.streamChunkSize(),
                c.executeOutputLimit(),
                c.maxProcesses(),
                Optional.of(token),
                c.logFormat(),
                c.grpcMaxConcurrentCalls(),
                c.runAs());
    }

    public static DaemonConfig withLimits(
            DaemonConfig c, int streamChunkSize, int executeOutputLimit, int maxProcesses) {
        return new DaemonConfig(
                c.listenHost(),
                c.grpcPort(),
                c.restPort(),
                c.rootDir(),
                c.metadataEnvPrefix(),
                c.shutdownTimeout(),
                c.httpIdleTimeout(),
                streamChunkSize,
                executeOutputLimit,
                maxProcesses,
                c.authToken(),
                c.logFormat(),
                c.grpcMaxConcurrentCalls(),
                c.runAs());
    }

    public static DaemonConfig withShutdownTimeout(DaemonConfig c, Duration timeout) {
        return new DaemonConfig(
                c.listenHost(),
                c.grpcPort(),
                c.restPort(),
                c.rootDir(),
                c.metadataEnvPrefix(),
                timeout,
                c.httpIdleTimeout(),
                c.streamChunkSize(),
                c.executeOutputLimit(),
                c.maxProcesses(),
                c.authToken(),
                c.logFormat(),
                c.grpcMaxConcurrentCalls(),
                c.runAs());
    }

    public static DaemonConfig withMaxConcurrentCalls(DaemonConfig c, int calls) {
        return new DaemonConfig(
                c.listenHost(),
                c.grpcPort(),
                c.restPort(),
                c.rootDir(),
                c.metadataEnvPrefix(),
                c.shutdownTimeout(),
                c.httpIdleTimeout(),
                c.streamChunkSize(),
                c.executeOutputLimit(),
                c.maxProcesses(),
                c.authToken(),
                c.logFormat(),
                calls,
                c.runAs());
    }

    /** The same settings with the processes (and kernels) run as {@code runAs}. */
    public static DaemonConfig withRunAs(DaemonConfig c, ChildCredentials runAs) {
        return new DaemonConfig(
                c.listenHost(),
                c.grpcPort(),
                c.restPort(),
                c.rootDir(),
                c.metadataEnvPrefix(),
                c.shutdownTimeout(),
                c.httpIdleTimeout(),
                c.streamChunkSize(),
                c.executeOutputLimit(),
                c.maxProcesses(),
                c.authToken(),
                c.logFormat(),
                c.grpcMaxConcurrentCalls(),
                runAs);
    }

    /** A request log that writes nowhere: most tests do not read it. */
    public static RequestLog silentLog() {
        return new RequestLog(org.slf4j.helpers.NOPLogger.NOP_LOGGER);
    }
}
