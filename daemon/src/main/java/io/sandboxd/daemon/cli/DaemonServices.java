package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.auth.AccessToken;
import io.sandboxd.daemon.fs.SandboxRoot;
import io.sandboxd.daemon.lifecycle.DaemonState;
import io.sandboxd.daemon.logging.RequestLog;
import io.sandboxd.daemon.metrics.Metrics;

/** What both transports share: settings, lifecycle state, metrics, auth, request log, the root. */
public record DaemonServices(
        DaemonConfig config,
        DaemonState state,
        Metrics metrics,
        AccessToken accessToken,
        RequestLog requestLog,
        SandboxRoot root) {

    public static DaemonServices create(DaemonConfig config) {
        return create(config, new Metrics());
    }

    /** @param metrics a registry built ahead (see {@link StartupPreloader}) */
    public static DaemonServices create(DaemonConfig config, Metrics metrics) {
        return new DaemonServices(config, new DaemonState(), metrics, AccessToken.from(config.authToken()),
                RequestLog.stderr(config.logFormat()), new SandboxRoot(config.rootDir()));
    }
}
