package io.sandboxd.controller.app;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;

/** JOSDK's metrics hooks on Micrometer: reconcile counts by kind and outcome, and duration. */
public final class MicrometerMetrics implements Metrics {
    private final MeterRegistry registry;

    public MicrometerMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void reconciliationStarted(HasMetadata r, Map<String, Object> meta) {
        Counter.builder("sandboxd_controller_reconcile_started")
                .tag("kind", r.getKind())
                .register(registry)
                .increment();
    }

    @Override
    public void reconciliationSucceeded(HasMetadata r, Map<String, Object> meta) {
        Counter.builder("sandboxd_controller_reconcile_total")
                .tag("kind", r.getKind())
                .tag("result", "success")
                .register(registry)
                .increment();
    }

    @Override
    public void reconciliationFailed(HasMetadata r, RetryInfo retry, Exception e, Map<String, Object> meta) {
        Counter.builder("sandboxd_controller_reconcile_total")
                .tag("kind", r.getKind())
                .tag("result", "error")
                .register(registry)
                .increment();
    }

    @Override
    public <T> T timeControllerExecution(ControllerExecution<T> execution) throws Exception {
        Timer timer = Timer.builder("sandboxd_controller_reconcile_seconds")
                .tag("controller", execution.controllerName())
                .publishPercentileHistogram()
                .register(registry);
        long start = System.nanoTime();
        try {
            return execution.execute();
        } finally {
            timer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }
}
