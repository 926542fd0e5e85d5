package io.sandboxd.controller.app;

import java.util.List;

/**
 * The flags of upstream's agent-sandbox-controller that have no counterpart here. Its manifests
 * start this controller unchanged; each flag given logs one warning saying why it has no effect.
 * (Upstream's worker counts, leader election, metrics address, cluster domain, extensions,
 * --zap-encoder, --zap-log-level and version flags are honoured: they are options of {@link Main}.)
 */
final class UpstreamFlags {
    private UpstreamFlags() {}

    private static NoEffectFlags.Flag bool(String name, String why) {
        return new NoEffectFlags.Flag(name, true, why);
    }

    private static NoEffectFlags.Flag valued(String name, String why) {
        return new NoEffectFlags.Flag(name, false, why);
    }

    private static final String NO_WEBHOOK =
            "no conversion webhook: every served version has the same schema, so the API server converts";
    private static final String NO_PPROF = "a Go profiler; use JDK Flight Recorder (jcmd JFR.start)";
    private static final String ZAP =
            "a Go logger option; logs go through SLF4J (--zap-encoder and --zap-log-level are honoured)";

    static final NoEffectFlags ALL = new NoEffectFlags(List.of(
            valued("--health-probe-bind-address", "/healthz and /readyz are served on --metrics-bind-address"),
            bool("--enable-tracing", "no OpenTelemetry tracing is built in"),
            bool("--enable-pprof", NO_PPROF),
            bool("--enable-pprof-debug", NO_PPROF),
            valued("--pprof-block-profile-rate", NO_PPROF),
            valued("--pprof-mutex-profile-fraction", NO_PPROF),
            valued("--kube-api-qps", "the API client is not rate limited client-side"),
            valued("--kube-api-burst", "the API client is not rate limited client-side"),
            valued("--api-connections", "the API client pools its own HTTP/2 connections"),
            bool("--separate-watch-connection", "the API client pools its own HTTP/2 connections"),
            valued("--sandbox-warm-pool-max-batch-size", "a pool creates or deletes its whole deficit per reconcile"),
            valued("--sandbox-warm-pool-replenish-delay", "a pool refills at once"),
            valued("--sandbox-warm-pool-max-refill-rate", "a pool refill is not paced"),
            valued("--sandbox-warm-pool-readiness-grace-period", "not-Ready pool members are not replaced"),
            valued("--sandbox-warm-pool-unschedulable-recheck-interval", "not-Ready pool members are not replaced"),
            valued("--sandbox-write-behind-window", "metadata writes are not coalesced"),
            bool(
                    "--enable-warm-pool-eviction",
                    "warm-pool Pods always get safe-to-evict=true unless their template sets it"),
            bool("--cache-label-selectors", "the Pod and Service informers are not narrowed by label"),
            bool("--disable-claim-events", "the SandboxClaim controller emits no Events"),
            bool("--disable-claim-observability-annotations", "no observability annotations are written"),
            valued("--webhook-port", NO_WEBHOOK),
            valued("--webhook-cert-dir", NO_WEBHOOK),
            valued("--webhook-cert-name", NO_WEBHOOK),
            valued("--webhook-key-name", NO_WEBHOOK),
            valued("--webhook-service-name", NO_WEBHOOK),
            valued("--webhook-namespace", NO_WEBHOOK),
            bool("--manage-webhook-certs", NO_WEBHOOK),
            bool("--enable-webhook", NO_WEBHOOK),
            bool("--zap-devel", ZAP),
            valued("--zap-stacktrace-level", ZAP),
            valued("--zap-time-encoding", ZAP)));
}
