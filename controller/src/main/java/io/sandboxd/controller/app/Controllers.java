package io.sandboxd.controller.app;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.Cloner;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.processing.event.rate.LinearRateLimiter;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.micrometer.core.instrument.MeterRegistry;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import io.sandboxd.controller.reconcile.SandboxClaimReconciler;
import io.sandboxd.controller.reconcile.SandboxReconciler;
import io.sandboxd.controller.reconcile.SandboxTemplateReconciler;
import io.sandboxd.controller.reconcile.SandboxWarmPoolReconciler;
import io.sandboxd.controller.reconcile.SharedSandboxes;
import io.sandboxd.controller.reconcile.WarmPoolLedger;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** Builds the JOSDK Operator with every reconciler registered: used by main() and by tests. */
public final class Controllers {
    private Controllers() {}

    /** Exponential backoff without an attempt limit (controller-runtime's default behaviour). */
    static GenericRetry backoff() {
        return new GenericRetry()
                .setInitialInterval(200)
                .setIntervalMultiplier(2.0)
                .setMaxInterval(60_000)
                .withoutMaxAttempts();
    }

    /**
     * fabric8 allows 5 concurrent requests per host by default; with dozens of workers that queue
     * is the bottleneck (and its 10 s acquire timeout the first error seen under load).
     */
    public static io.fabric8.kubernetes.client.Config tuned(io.fabric8.kubernetes.client.Config base) {
        return new io.fabric8.kubernetes.client.ConfigBuilder(base)
                .withMaxConcurrentRequests(256)
                .withMaxConcurrentRequestsPerHost(128)
                .build();
    }

    /** Tests: the CRUD mock server is single-threaded, so also allow slow responses under load. */
    public static io.fabric8.kubernetes.client.Config tunedForMock(io.fabric8.kubernetes.client.Config base) {
        return new io.fabric8.kubernetes.client.ConfigBuilder(tuned(base))
                .withRequestTimeout(60_000)
                .withConnectionTimeout(60_000)
                .build();
    }

    /** JOSDK's controller names, which are also the keys of {@link ReconcileWorkers}. */
    public static final String SANDBOX = "sandbox";

    public static final String TEMPLATE = "sandboxtemplate";
    public static final String WARM_POOL = "sandboxwarmpool";
    public static final String CLAIM = "sandboxclaim";

    /** Each controller's own reconcile threads, sized from the options. */
    public static ReconcileWorkers workers(ControllerOptions.Workers w) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put(SANDBOX, w.sandbox());
        m.put(TEMPLATE, w.template());
        m.put(WARM_POOL, w.warmPool());
        m.put(CLAIM, w.claim());
        // JOSDK's own non-reconcile tasks, if any reach this executor: a few threads are plenty.
        return new ReconcileWorkers(m, 4);
    }

    public static Operator build(
            KubernetesClient client,
            ControllerOptions opts,
            MeterRegistry registry,
            LeaderElectionConfiguration leaderElection) {
        return build(
                client,
                opts,
                registry,
                leaderElection,
                workers(opts.workers()),
                DEFAULT_CACHE_SYNC_TIMEOUT,
                new SharedPrimaries());
    }

    /**
     * Makes fabric8 read our kinds straight into their classes. Unregistered, every watch event of a
     * Sandbox, SandboxTemplate, SandboxWarmPool or SandboxClaim is read into a generic resource and
     * then converted (a second pass over the object): in a JFR profile of a warm claim burst
     * ({@code sandboxd-bench controller}) that conversion took 7.5% of the controller's CPU samples.
     */
    static void readKindsIntoTheirClasses(KubernetesClient client) {
        KubernetesSerialization serialization = client.getKubernetesSerialization();
        serialization.registerKubernetesResource(Sandbox.class);
        serialization.registerKubernetesResource(SandboxTemplate.class);
        serialization.registerKubernetesResource(SandboxWarmPool.class);
        serialization.registerKubernetesResource(SandboxClaim.class);
    }

    /**
     * fabric8's serialization with four changes: watch events are read in one pass when their
     * object starts with its apiVersion and kind ({@link KindFirstWatchObjects}), {@code
     * metadata.managedFields} is not read ({@link StripManagedFields}), and of a Pod only what the
     * controller reads is ({@link SlimPods}); and JSON is read without being copied first ({@link
     * UnbufferedSerialization}). The mapper is the one fabric8 builds by default otherwise.
     */
    public static KubernetesSerialization serialization() {
        return new UnbufferedSerialization(JsonMapper.builderWithJackson2Defaults()
                .addModule(new Jackson2JdkTypesModule())
                .addMixIn(WatchEvent.class, KindFirstWatchObjects.WatchEventMixIn.class)
                .addMixIn(ObjectMeta.class, StripManagedFields.class)
                .addMixIn(Pod.class, SlimPods.PodMixIn.class)
                .build());
    }

    /**
     * The operator's client: {@link #serialization()}, its HTTP on {@link ApiEventLoops}, and
     * fabric8's tasks on a {@link FabricTaskPool}, which closes the loops when the client closes.
     */
    public static KubernetesClient client(io.fabric8.kubernetes.client.Config config) {
        return client(config, ApiEventLoops.onePerCore());
    }

    /** @param eventLoops the client's vert.x event loops (--api-event-loops) */
    public static KubernetesClient client(io.fabric8.kubernetes.client.Config config, int eventLoops) {
        ApiEventLoops loops = new ApiEventLoops(eventLoops);
        return new KubernetesClientBuilder()
                .withConfig(config)
                .withKubernetesSerialization(serialization())
                .withHttpClientFactory(loops.httpClients())
                .withTaskExecutorSupplier(new FabricTaskPool(loops))
                .build();
    }

    /**
     * A pool reconciles at most once per period; events within it are folded into one pass at its
     * end. Each pass reads every member and writes the pool's status when a count moved, and every
     * adoption and refill moves one, so with claims trickling in (50/s against a pool of 1,000) the
     * pool controller reconciled 2.7 times and wrote its status 2.7 times per claim.
     */
    public static final Duration POOL_RECONCILE_PERIOD = Duration.ofMillis(100);

    /** How long Operator.start() waits for the informers' first list before returning without it. */
    public static final Duration DEFAULT_CACHE_SYNC_TIMEOUT = Duration.ofMinutes(2);

    /**
     * @param primaries what each reconcile gets of its cached primary: the object itself in
     *     production ({@link SharedPrimaries}); tests pass one that also checks it was not changed
     */
    public static Operator build(
            KubernetesClient client,
            ControllerOptions opts,
            MeterRegistry registry,
            LeaderElectionConfiguration leaderElection,
            ReconcileWorkers workers,
            Duration cacheSyncTimeout,
            Cloner primaries) {
        readKindsIntoTheirClasses(client);
        Operator op = new Operator(o -> {
            o.withKubernetesClient(client)
                    .withExecutorService(workers)
                    .withCloseClientOnStop(false)
                    .withStopOnInformerErrorDuringStartup(false)
                    .withCacheSyncTimeout(cacheSyncTimeout)
                    .withUseSSAToPatchPrimaryResource(false)
                    .withResourceCloner(primaries)
                    .withMetrics(ControllerMeters.josdk(registry));
            if (leaderElection != null) o.withLeaderElectionConfiguration(leaderElection);
        });
        // One ledger of Ready, unclaimed pool members, filled from the Sandbox controller's watch, which
        // serves the claim and pool controllers too: claims take from it, and the pool never deletes a
        // member a claim is adopting.
        WarmPoolLedger ledger = opts.extensions() ? new WarmPoolLedger() : null;
        SharedSandboxes shared = opts.extensions() ? new SharedSandboxes(ledger, cacheSyncTimeout) : null;
        SandboxReconciler sandboxes = new SandboxReconciler(opts.clusterDomain(), opts.clock(), shared);
        op.register(sandboxes, c -> c.withName(SANDBOX)
                .withGenerationAware(false)
                .withOnUpdateFilter(sandboxes.primaryUpdates())
                .withRetry(backoff())
                .withReconciliationMaxInterval(Duration.ofHours(10)));
        if (opts.extensions()) {
            op.register(new SandboxTemplateReconciler(), c -> c.withName(TEMPLATE)
                    .withGenerationAware(false)
                    .withRetry(backoff())
                    .withReconciliationMaxInterval(Duration.ofHours(10)));
            SandboxClaimReconciler claims = new SandboxClaimReconciler(opts.clock(), registry, ledger, shared);
            op.register(claims, c -> c.withName(CLAIM)
                    .withGenerationAware(false)
                    .withOnUpdateFilter(claims.primaryUpdates())
                    .withRetry(backoff())
                    .withReconciliationMaxInterval(Duration.ofHours(10)));
            SandboxWarmPoolReconciler pools = new SandboxWarmPoolReconciler(ledger, shared);
            op.register(pools, c -> c.withName(WARM_POOL)
                    .withGenerationAware(false)
                    .withOnUpdateFilter(pools.primaryUpdates())
                    .withRateLimiter(new LinearRateLimiter(POOL_RECONCILE_PERIOD, 1))
                    .withRetry(backoff())
                    .withReconciliationMaxInterval(Duration.ofHours(10)));
        }
        return op;
    }
}
