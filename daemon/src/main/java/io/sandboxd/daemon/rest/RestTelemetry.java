package io.sandboxd.daemon.rest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sandboxd.daemon.logging.RequestLog;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

import java.util.concurrent.TimeUnit;

/**
 * One log line and the metrics of every finished HTTP exchange, including those Jetty answers
 * itself (bad request lines). Hooked in as Jetty's request log, so it sees the real bytes moved.
 * The route label is a fixed template, never the client's path, to bound metric cardinality.
 */
final class RestTelemetry implements org.eclipse.jetty.server.RequestLog {
    private final MeterRegistry registry;
    private final RequestLog log;

    RestTelemetry(MeterRegistry registry, RequestLog log) {
        this.registry = registry;
        this.log = log;
    }

    static String route(String path) {
        if (path == null) {
            return "unmatched";
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

    @Override
    public void log(Request request, Response response) {
        String path = request.getHttpURI().getPath();
        String route = route(path);
        String method = method(request.getMethod());
        int status = response.getStatus();
        long nanos = System.nanoTime() - request.getBeginNanoTime();
        long in = Request.getContentBytesRead(request);
        long out = Response.getContentBytesWritten(response);
        String statusText = Integer.toString(status);
        Timer.builder("sandboxd.http.server.requests")
                .description("REST requests by route, method and status")
                .tags("route", route, "method", method, "status", statusText)
                .register(registry).record(nanos, TimeUnit.NANOSECONDS);
        DistributionSummary.builder("sandboxd.http.server.request.body")
                .description("Request body bytes received").baseUnit("bytes")
                .tags("route", route, "method", method)
                .register(registry).record(in);
        DistributionSummary.builder("sandboxd.http.server.response.body")
                .description("Response body bytes sent").baseUnit("bytes")
                .tags("route", route, "method", method)
                .register(registry).record(out);
        if (status >= 400) {
            Counter.builder("sandboxd.http.server.errors")
                    .description("REST responses with status >= 400")
                    .tags("route", route, "status", statusText)
                    .register(registry).increment();
        }
        log.log("rest", request.getMethod(), path == null ? "" : path, statusText, nanos, in, out);
    }
}
