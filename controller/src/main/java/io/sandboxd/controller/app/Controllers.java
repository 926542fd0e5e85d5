package io.sandboxd.controller.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.micrometer.core.instrument.MeterRegistry;
import io.sandboxd.controller.reconcile.SandboxClaimReconciler;
import io.sandboxd.controller.reconcile.SandboxReconciler;
import io.sandboxd.controller.reconcile.SandboxTemplateReconciler;
import io.sandboxd.controller.reconcile.SandboxWarmPoolReconciler;
import java.time.Duration;

/** Builds the JOSDK Operator with every reconciler registered: used by main() and by tests. */
public final class Controllers {
  private Controllers() {}

  /** Exponential backoff without an attempt limit (controller-runtime's default behaviour). */
  static GenericRetry backoff() {
    return new GenericRetry().setInitialInterval(200).setIntervalMultiplier(2.0).setMaxInterval(60_000).withoutMaxAttempts();
  }

  /**
   * fabric8 allows 5 concurrent requests per host by default; with dozens of workers that queue
   * is the bottleneck (and its 10 s acquire timeout the first error seen under load).
   */
  public static io.fabric8.kubernetes.client.Config tuned(io.fabric8.kubernetes.client.Config base) {
    return new io.fabric8.kubernetes.client.ConfigBuilder(base).withMaxConcurrentRequests(256)
        .withMaxConcurrentRequestsPerHost(128).build();
  }

  /** Tests: the CRUD mock server is single-threaded, so also allow slow responses under load. */
  public static io.fabric8.kubernetes.client.Config tunedForMock(io.fabric8.kubernetes.client.Config base) {
    return new io.fabric8.kubernetes.client.ConfigBuilder(tuned(base)).withRequestTimeout(60_000)
        .withConnectionTimeout(60_000).build();
  }

  public static Operator build(KubernetesClient client, ControllerOptions opts, MeterRegistry registry,
      LeaderElectionConfiguration leaderElection) {
    Operator op = new Operator(o -> {
      o.withKubernetesClient(client)
          .withConcurrentReconciliationThreads(opts.workers())
          .withCloseClientOnStop(false)
          .withStopOnInformerErrorDuringStartup(false)
          .withCacheSyncTimeout(Duration.ofMinutes(2))
          .withUseSSAToPatchPrimaryResource(false)
          .withMetrics(new MicrometerMetrics(registry));
      if (leaderElection != null) o.withLeaderElectionConfiguration(leaderElection);
    });
    op.register(new SandboxReconciler(opts.clusterDomain(), opts.clock()), c -> c.withName("sandbox")
        .withGenerationAware(false).withRetry(backoff()).withReconciliationMaxInterval(Duration.ofHours(10)));
    if (opts.extensions()) {
      op.register(new SandboxTemplateReconciler(), c -> c.withName("sandboxtemplate")
          .withGenerationAware(false).withRetry(backoff()).withReconciliationMaxInterval(Duration.ofHours(10)));
      op.register(new SandboxWarmPoolReconciler(), c -> c.withName("sandboxwarmpool")
          .withGenerationAware(false).withRetry(backoff()).withReconciliationMaxInterval(Duration.ofHours(10)));
      op.register(new SandboxClaimReconciler(opts.clock(), registry), c -> c.withName("sandboxclaim")
          .withGenerationAware(false).withRetry(backoff()).withReconciliationMaxInterval(Duration.ofHours(10)));
    }
    return op;
  }
}
