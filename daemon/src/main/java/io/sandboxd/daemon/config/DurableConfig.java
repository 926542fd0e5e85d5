package io.sandboxd.daemon.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of durable processes and their output journal (issue 18). Built by the command line
 * next to {@link DaemonConfig}; read by the wiring and the gRPC listener.
 *
 * @param stateDir         where the journal lives ({@code <state-dir>/journal}); outside the sandbox root
 * @param journalRetention bytes retained per stream of a process unless its Start asks for other
 * @param journalTotalCap  bytes retained by all journals together; the oldest go first beyond it
 * @param endedRetention   how long an ended process (exit record and journal) is kept
 * @param maxEnded         how many ended processes are kept at most
 * @param timeoutGrace     SIGTERM to SIGKILL when a server-side timeout fires
 * @param attachHeartbeat  a heartbeat event on an attach stream silent this long
 */
public record DurableConfig(
        Path stateDir,
        long journalRetention,
        long journalTotalCap,
        Duration endedRetention,
        int maxEnded,
        Duration timeoutGrace,
        Duration attachHeartbeat) {
    /**
     * {@code /tmp/sandboxd-state-<uid>}: one directory per user, so daemons of different users on
     * one machine (tests, a root daemon next to a non-root one) never share or block each other's.
     */
    public static Path defaultStateDir() {
        Object uid;
        try {
            uid = java.nio.file.Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (java.io.IOException | UnsupportedOperationException e) {
            uid = System.getProperty("user.name");
        }
        return Path.of("/tmp", "sandboxd-state-" + uid);
    }

    public static final long DEFAULT_RETENTION = 8L * 1024 * 1024;
    public static final long DEFAULT_TOTAL_CAP = 1024L * 1024 * 1024;

    /** The defaults over {@code stateDir} (tests, and daemons built without the flags). */
    public static DurableConfig defaults(Path stateDir) {
        return new DurableConfig(
                stateDir,
                DEFAULT_RETENTION,
                DEFAULT_TOTAL_CAP,
                Duration.ofHours(1),
                1000,
                Duration.ofSeconds(5),
                Duration.ofSeconds(15));
    }
}
