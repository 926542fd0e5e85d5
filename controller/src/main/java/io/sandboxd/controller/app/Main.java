package io.sandboxd.controller.app;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sandboxd.logging.LogFormat;
import io.sandboxd.logging.LogLevel;
import io.sandboxd.logging.LogSetup;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** `java -jar sandboxd-controller.jar`: in-cluster or kubeconfig credentials (fabric8 auto-config). */
@Command(
        name = "sandboxd-controller",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = "Controller for agents.x-k8s.io Sandbox and the extensions.agents.x-k8s.io resources.")
public final class Main implements java.util.concurrent.Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);
    /** The one-line refusals, printed bare in the text format ("sandboxd-controller: ..."). */
    private static final Logger SELF = LoggerFactory.getLogger(LogSetup.DAEMON + ".controller");

    static final String LOG_FORMAT_ENV = "SANDBOXD_LOG_FORMAT";

    @Option(
            names = "--cluster-domain",
            defaultValue = "${env:CLUSTER_DOMAIN:-cluster.local}",
            description = "Cluster DNS domain for status.serviceFQDN (default ${DEFAULT-VALUE}).")
    String clusterDomain;

    @Option(
            names = "--extensions",
            defaultValue = "true",
            negatable = true,
            arity = "0..1",
            fallbackValue = "true",
            description =
                    "Run the SandboxTemplate, SandboxWarmPool and SandboxClaim controllers (default ${DEFAULT-VALUE}).")
    boolean extensions;

    @Option(
            names = "--leader-elect",
            defaultValue = "true",
            negatable = true,
            arity = "0..1",
            fallbackValue = "true",
            description = "Use a Lease so only one replica reconciles (default ${DEFAULT-VALUE}).")
    boolean leaderElect;

    @Option(
            names = "--leader-election-namespace",
            defaultValue = "${env:POD_NAMESPACE:-agent-sandbox-system}",
            description = "Namespace of the leader-election Lease (default ${DEFAULT-VALUE}).")
    String leaseNamespace;

    @Option(
            names = "--leader-election-id",
            defaultValue = "sandboxd-controller.agents.x-k8s.io",
            description = "Name of the leader-election Lease (default ${DEFAULT-VALUE}).")
    String leaseName;

    @Option(
            names = "--metrics-bind-address",
            defaultValue = "0.0.0.0:8080",
            description = "host:port for /metrics, /healthz and /readyz (default ${DEFAULT-VALUE}).")
    String metricsAddress;

    @Option(
            names = {"--sandbox-workers", "--sandbox-concurrent-workers"},
            defaultValue = "32",
            description = "Concurrent Sandbox reconciles (default ${DEFAULT-VALUE}).")
    int sandboxWorkers;

    @Option(
            names = {"--claim-workers", "--sandbox-claim-concurrent-workers"},
            defaultValue = "32",
            description = "Concurrent SandboxClaim reconciles (default ${DEFAULT-VALUE}).")
    int claimWorkers;

    @Option(
            names = {"--warm-pool-workers", "--sandbox-warm-pool-concurrent-workers"},
            defaultValue = "4",
            description = "Concurrent SandboxWarmPool reconciles (default ${DEFAULT-VALUE}).")
    int warmPoolWorkers;

    @Option(
            names = {"--template-workers", "--sandbox-template-concurrent-workers"},
            defaultValue = "2",
            description = "Concurrent SandboxTemplate reconciles (default ${DEFAULT-VALUE}).")
    int templateWorkers;

    @Option(
            names = "--api-event-loops",
            paramLabel = "<n>",
            description = "Event loop threads for the connections to the API server (default: one per core the"
                    + " JVM sees, where vert.x's own default is two; fewer loops cost less CPU per request"
                    + " and queue more of a burst's replies).")
    Integer apiEventLoops;

    @Option(
            names = "--cache-sync-timeout-seconds",
            defaultValue = "120",
            description = "How long start-up waits for the informers' first list; after it the controller runs"
                    + " on, not ready, while they retry (default ${DEFAULT-VALUE}).")
    int cacheSyncTimeoutSeconds;

    @Option(
            names = "--log-format",
            defaultValue = "${env:" + LOG_FORMAT_ENV + ":-text}",
            description = "Log format of every stderr line: text or json, one object per line" + " (env "
                    + LOG_FORMAT_ENV + ", default ${DEFAULT-VALUE}).")
    String logFormat;

    @Option(
            names = "--zap-encoder",
            description = "Upstream's log encoder flag: json or console, the same as --log-format json or text;"
                    + " --log-format (or its env) wins when both are given.")
    String zapEncoder;

    @Option(
            names = "--zap-log-level",
            paramLabel = "<level>",
            description = "Upstream's log level flag: debug, info, warn or error (dpanic, panic and fatal keep"
                    + " errors only), or zap's verbosity n >= 1 (1 = debug, 2 and more = trace); default info.")
    String zapLogLevel;

    @Spec
    CommandSpec spec;

    /** --zap-log-level as the root log level (info without it). */
    LogLevel logLevel() {
        try {
            return LogLevel.fromZap(zapLogLevel);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** --log-format, or upstream's --zap-encoder when neither --log-format nor its env is given. */
    LogFormat logFormat(Map<String, String> env) {
        boolean given =
                spec.commandLine().getParseResult().hasMatchedOption("--log-format") || env.containsKey(LOG_FORMAT_ENV);
        try {
            return LogFormat.choose(logFormat, given, zapEncoder);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The --*-workers flags; each names itself when it is below 1. */
    ControllerOptions.Workers workers() {
        Map<String, Integer> flags = new LinkedHashMap<>();
        flags.put("--sandbox-workers", sandboxWorkers);
        flags.put("--claim-workers", claimWorkers);
        flags.put("--warm-pool-workers", warmPoolWorkers);
        flags.put("--template-workers", templateWorkers);
        flags.forEach((flag, n) -> {
            if (n < 1)
                throw new CommandLine.ParameterException(
                        spec.commandLine(), flag + " must be at least 1 (reconcile threads), not " + n);
        });
        return new ControllerOptions.Workers(sandboxWorkers, claimWorkers, warmPoolWorkers, templateWorkers);
    }

    /** --api-event-loops, or one per core; names itself when it is below 1. */
    int apiEventLoops() {
        int n = apiEventLoops == null ? ApiEventLoops.onePerCore() : apiEventLoops;
        if (n < 1)
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--api-event-loops must be at least 1 (event loop threads), not " + n);
        return n;
    }

    public static void main(String[] args) {
        NoOperatorMdc.apply();
        System.exit(commandLine().execute(args));
    }

    /** The command with upstream's flags that have no effect here declared too. */
    static CommandLine commandLine() {
        CommandLine cmd = new CommandLine(new Main());
        UpstreamFlags.ALL.addTo(cmd.getCommandSpec());
        return cmd;
    }

    /**
     * Losing the Lease ends the process with status 1, as JOSDK's exitOnStopLeading would, but not
     * the way it does it. JOSDK calls System.exit inside fabric8's stop-leading callback, and both
     * ways in deadlock with our shutdown hook: on SIGTERM, op.stop() runs that callback on the hook
     * thread (System.exit inside a hook blocks forever); on a lost Lease, the exiting thread holds
     * the LeaderElector's lock that op.stop() in the hook then waits for. Either way the leader hung
     * until SIGKILL. So: no exit when we are stopping anyway, and the exit from another thread.
     */
    private LeaderElectionConfiguration leaderElection(AtomicBoolean stopping) {
        LeaderCallbacks callbacks = new LeaderCallbacks(
                () -> {},
                () -> {
                    if (stopping.get()) return;
                    LOG.atError()
                            .addKeyValue("lease", leaseNamespace + "/" + leaseName)
                            .log("lost the leader-election Lease; exiting");
                    new Thread(() -> System.exit(1), "lease-lost-exit").start();
                },
                identity -> {});
        return new LeaderElectionConfiguration(
                leaseName,
                leaseNamespace,
                LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
                LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
                LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE,
                null,
                callbacks,
                false);
    }

    private static Map<String, String> systemProperties(String... keys) {
        Map<String, String> m = new java.util.HashMap<>();
        for (String k : keys) {
            String v = System.getProperty(k);
            if (v != null) m.put(k, v);
        }
        return m;
    }

    @Override
    public Integer call() throws Exception {
        // before anything else logs: from here on every stderr line is in the chosen format
        LogSetup.install(logFormat(System.getenv()), logLevel());
        for (String warning : UpstreamFlags.ALL.warnings(spec.commandLine().getParseResult())) {
            LOG.warn(warning);
        }
        ControllerOptions.Workers workers = workers();
        int eventLoops = apiEventLoops();
        java.util.Optional<String> noCluster = ClusterAccess.missing(
                System.getenv(),
                systemProperties("kubernetes.master", "kubeconfig"),
                java.nio.file.Path.of(System.getProperty("user.home")));
        if (noCluster.isPresent()) {
            SELF.error("sandboxd-controller: {}", noCluster.get());
            return 1;
        }
        PrometheusMeterRegistry registry = ControllerMeters.prometheus();
        // The probes answer from the first moment: /healthz 200 (the process is alive), /readyz 503
        // until the operator runs with every informer healthy. Without a reachable API server the
        // controller keeps running not-ready while fabric8 retries, instead of hanging unprobed or
        // exiting into a crash loop.
        AtomicReference<Operator> started = new AtomicReference<>();
        int colon = metricsAddress.lastIndexOf(':');
        HttpEndpoints http = new HttpEndpoints(
                metricsAddress.substring(0, colon),
                Integer.parseInt(metricsAddress.substring(colon + 1)),
                registry,
                () -> {
                    Operator running = started.get();
                    return running != null && running.getRuntimeInfo().allEventSourcesAreHealthy();
                });
        LOG.atInfo().addKeyValue("port", http.port()).log("probes and metrics listening");
        KubernetesClient client = Controllers.client(Controllers.tuned(Config.autoConfigure(null)), eventLoops);
        AtomicBoolean stopping = new AtomicBoolean();
        LeaderElectionConfiguration le = leaderElect ? leaderElection(stopping) : null;
        ControllerOptions options = new ControllerOptions(clusterDomain, extensions, workers, Clock.systemUTC());
        Operator op = Controllers.build(
                client,
                options,
                registry,
                le,
                Controllers.workers(options.workers()),
                Duration.ofSeconds(cacheSyncTimeoutSeconds),
                new SharedPrimaries());
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            LOG.atInfo().log("shutting down");
                            stopping.set(true);
                            op.stop();
                            http.close();
                            client.close();
                            done.countDown();
                        },
                        "shutdown"));
        // Returns once the informers synced, or after the cache-sync timeout with them still retrying.
        op.start();
        started.set(op);
        LOG.atInfo()
                .addKeyValue("master", client.getMasterUrl())
                .addKeyValue("extensions", extensions)
                .addKeyValue("leaderElection", leaderElect)
                .addKeyValue("metricsPort", http.port())
                .log("controller started");
        done.await();
        return 0;
    }
}
