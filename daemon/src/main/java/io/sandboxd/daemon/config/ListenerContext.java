package io.sandboxd.daemon.config;

import io.sandboxd.daemon.auth.AccessToken;
import io.sandboxd.daemon.lifecycle.DaemonState;
import io.sandboxd.daemon.logging.RequestLog;
import io.sandboxd.daemon.metrics.Metrics;

/**
 * What both listeners apply around every request, whatever it asks of the core: whether the
 * daemon still serves (the gRPC gate, health), who may call (the bearer token), and where the
 * request's log line and meters go.
 */
public record ListenerContext(DaemonState state, AccessToken accessToken, RequestLog requestLog, Metrics metrics) {}
