package io.sandboxd.controller.app;

import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetricsV2;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/** The controller's meters: the registry /metrics serves, and JOSDK's reconciliation metrics on it. */
public final class ControllerMeters {
    private ControllerMeters() {}

    /**
     * Histogram buckets of JOSDK's reconcile timer ({@code reconciliations_execution_duration_seconds}).
     * A reconcile with nothing to change answers from the informer caches in well under 5 ms; one
     * that writes costs one or two API round trips (5-50 ms in a cluster, more with a busy etcd);
     * hundreds of milliseconds to seconds mean queueing on the API server or client; 30 s is three
     * fabric8 request timeouts, a hung reconcile. Bucket counts add up across replicas, so a
     * percentile can be taken over all of them, which client-side percentiles cannot give.
     */
    static final Duration[] RECONCILE_BUCKETS = {
        Duration.ofMillis(1),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30)
    };

    /**
     * Histogram buckets of the JVM's stop-the-world pauses ({@code jvm_gc_pause_seconds}): every
     * claim in flight waits out a pause, so a pause longer than the claim latency's p99 target (20
     * ms, issue 23) shows in it directly. The serial collector's young pauses were 19-29 ms during a
     * burst of 300 warm claims/s and its full collections 169-294 ms (the bench's GC log); the
     * buckets tell those apart, and add up across replicas as a client-side maximum cannot.
     */
    static final Duration[] GC_PAUSE_BUCKETS = {
        Duration.ofMillis(1),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(20),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(200),
        Duration.ofMillis(500),
        Duration.ofSeconds(1)
    };

    /** The Prometheus registry behind /metrics, with the JVM's memory, thread, GC and CPU meters bound. */
    public static PrometheusMeterRegistry prometheus() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(gcPauseBuckets());
        new JvmGcMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        return registry;
    }

    private static MeterFilter gcPauseBuckets() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!"jvm.gc.pause".equals(id.getName())) return config;
                double[] nanos = new double[GC_PAUSE_BUCKETS.length];
                for (int i = 0; i < nanos.length; i++) nanos[i] = GC_PAUSE_BUCKETS[i].toNanos();
                return DistributionStatisticConfig.builder()
                        .serviceLevelObjectives(nanos)
                        .build()
                        .merge(config);
            }
        };
    }

    /**
     * JOSDK's own Micrometer metrics (its micrometer-support module), under JOSDK's names and its
     * {@code controller.name} tag, so JOSDK's documentation and dashboards apply unchanged: started,
     * succeeded, failed and retried reconciles, reconciles running and queued, resources tracked,
     * events received, and the reconcile duration with {@link #RECONCILE_BUCKETS}.
     */
    static Metrics josdk(MeterRegistry registry) {
        return MicrometerMetricsV2.newBuilder(registry)
                .withExecutionTimerConfig(timer -> timer.serviceLevelObjectives(RECONCILE_BUCKETS))
                .build();
    }
}
