package io.sandboxd.controller.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.micrometer.core.instrument.MeterRegistry;
import io.sandboxd.controller.reconcile.SandboxReconciler;
import java.time.Duration;

/** Builds the JOSDK Operator with every reconciler registered: used by main() and by tests. */
public final class Controllers {
  private Controllers() {}

  /** Exponential backoff without an attempt limit (controller-runtime's default behaviour). */
  static GenericRetry backoff() {
    return new GenericRetry().setInitialInterval(200).setIntervalMultiplier(2.0).setMaxInterval(60_000).withoutMaxAttempts();
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
    return op;
  }
}
