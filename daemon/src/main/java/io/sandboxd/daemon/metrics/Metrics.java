package io.sandboxd.daemon.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The daemon's one meter registry, scraped as Prometheus text on {@code GET /metrics}. */
public final class Metrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    public MeterRegistry registry() {
        return registry;
    }

    public String scrape() {
        return registry.scrape();
    }

    public String contentType() {
        return "text/plain; version=0.0.4; charset=utf-8";
    }
}
