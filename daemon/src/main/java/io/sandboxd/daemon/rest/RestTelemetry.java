package io.sandboxd.daemon.rest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sandboxd.daemon.logging.RequestLog;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * One log line and the metrics of every finished HTTP exchange, including those Jetty answers
 * itself (bad request lines). Hooked in as Jetty's request log, so it sees the real bytes moved.
 * The route label is a fixed template, never the client's path, to bound metric cardinality.
 */
final class RestTelemetry implements org.eclipse.jetty.server.RequestLog {
    private final MeterRegistry registry;
    private final RequestLog log;
    private final ExtensionRoutes extensions;

    RestTelemetry(MeterRegistry registry, RequestLog log, ExtensionRoutes extensions) {
        this.registry = registry;
        this.log = log;
        this.extensions = extensions;
    }

    static String route(String path, ExtensionRoutes extensions) {
        if (path == null) {
            return "unmatched";
        }
        String extension = extensions.route(path);
        if (extension != null) {
            return extension;
        }
        if (path.equals(RawPath.PREFIX) || path.startsWith(RawPath.PREFIX + "/")) {
            return "/v1/files/{path}";
        }
        return switch (path) {
            case "/v1/health", "/v1/metadata", "/metrics" -> path;
            default -> "unmatched";
        };
    }

    static String method(String m) {
        return switch (m) {
            case "GET", "HEAD", "PUT", "DELETE", "POST", "OPTIONS", "PATCH" -> m;
            default -> "other";
        };
    }

    /** The meters of one (route, method, status): looked up once, not rebuilt per request. */
    private record Meters(
            Timer requests, DistributionSummary requestBody, DistributionSummary responseBody, Counter errors) {}

    /** Bounded: routes, methods and statuses are all small fixed sets. */
    private final ConcurrentHashMap<String, Meters> meters = new ConcurrentHashMap<>();

    private Meters meters(String route, String method, int status) {
        String key = route + ' ' + method + ' ' + status;
        Meters m = meters.get(key);
        if (m == null) {
            m = meters.computeIfAbsent(key, k -> register(route, method, status));
        }
        return m;
    }

    private Meters register(String route, String method, int status) {
        String statusText = Integer.toString(status);
        Timer requests = Timer.builder("sandboxd.http.server.requests")
                .description("REST requests by route, method and status")
                .tags("route", route, "method", method, "status", statusText)
                .register(registry);
        DistributionSummary in = DistributionSummary.builder("sandboxd.http.server.request.body")
                .description("Request body bytes received")
                .baseUnit("bytes")
                .tags("route", route, "method", method)
                .register(registry);
        DistributionSummary out = DistributionSummary.builder("sandboxd.http.server.response.body")
                .description("Response body bytes sent")
                .baseUnit("bytes")
                .tags("route", route, "method", method)
                .register(registry);
        Counter errors = status < 400
                ? null
                : Counter.builder("sandboxd.http.server.errors")
                        .description("REST responses with status >= 400")
                        .tags("route", route, "status", statusText)
                        .register(registry);
        return new Meters(requests, in, out, errors);
    }

    @Override
    public void log(Request request, Response response) {
        String path = request.getHttpURI().getPath();
        String route = route(path, extensions);
        String method = method(request.getMethod());
        int status = response.getStatus();
        long nanos = System.nanoTime() - request.getBeginNanoTime();
        long in = Request.getContentBytesRead(request);
        long out = Response.getContentBytesWritten(response);
        Meters m = meters(route, method, status);
        m.requests().record(nanos, TimeUnit.NANOSECONDS);
        m.requestBody().record(in);
        m.responseBody().record(out);
        if (m.errors() != null) {
            m.errors().increment();
        }
        log.log("rest", request.getMethod(), path == null ? "" : path, Integer.toString(status), nanos, in, out);
    }
}
