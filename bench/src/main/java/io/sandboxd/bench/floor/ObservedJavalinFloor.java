package io.sandboxd.bench.floor;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sandboxd.logging.LogFormat;
import io.sandboxd.logging.LogLevel;
import io.sandboxd.logging.LogSetup;
import org.slf4j.LoggerFactory;

/**
 * The Javalin floor plus the observability the daemon builds before it serves: logback through
 * the logging module's LogSetup (text format, JUL bridged) and a Micrometer Prometheus registry
 * (its Metrics class) with a timer on the health route. Its distance to {@link JavalinFloor} is
 * their share of the start-up and of the idle memory. Run it without {@code -Dslf4j.provider}.
 */
public final class ObservedJavalinFloor {
    private ObservedJavalinFloor() {}

    public static void main(String[] args) throws Exception {
        FloorFlags flags = FloorFlags.parse(args);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        LogSetup.install(LogFormat.TEXT, LogLevel.INFO);
        LoggerFactory.getLogger(LogSetup.DAEMON)
                .info("floor starting: REST on {}, gRPC on {}", flags.restPort(), flags.grpcPort());
        Timer health =
                Timer.builder("http_server_requests").tag("route", "/v1/health").register(registry);
        JavalinFloor.serve(flags, ctx -> health.record(() -> JavalinFloor.health(ctx)));
    }
}
