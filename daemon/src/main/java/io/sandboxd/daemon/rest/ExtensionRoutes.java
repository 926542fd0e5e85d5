package io.sandboxd.daemon.rest;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The registration point of the extension routes (runtime-contract §4): every route a feature
 * adds beyond upstream's API lives under {@link #PREFIX}, which upstream's routes cannot collide
 * with. A feature registers its routes with one call each ({@code routes.add(GET, "fs/stat", h)});
 * they get what every route of the REST port gets (the bearer-token check of {@link RestServer},
 * the JSON errors, 405 with {@code Allow}, a bounded metrics label). Paths travel in the query
 * ({@link QueryParams#path}), never in the route, so the route is a fixed string: Jetty's
 * canonicalisation of {@code ..} never reroutes a request, and the route doubles as the label.
 */
final class ExtensionRoutes {
    static final String PREFIX = "/sandboxd/v1alpha1";

    private final JavalinDefaultRoutingApi routes;
    /** Full path → the methods served there, for {@code Allow} and the metrics label. */
    private final Map<String, Set<String>> methods = new LinkedHashMap<>();

    ExtensionRoutes(JavalinDefaultRoutingApi routes) {
        this.routes = routes;
    }

    /**
     * Serves {@code method} on {@code PREFIX/route}.
     *
     * @param route relative to the prefix, without a leading {@code /}, e.g. {@code fs/stat}
     */
    ExtensionRoutes add(HandlerType method, String route, Handler handler) {
        if (route.startsWith("/") || route.isEmpty()) {
            throw new IllegalArgumentException("route must be relative to " + PREFIX + ": " + route);
        }
        String path = PREFIX + "/" + route;
        routes.addHttpHandler(method, path, handler);
        methods.computeIfAbsent(path, p -> new TreeSet<>()).add(method.name());
        return this;
    }

    /** The methods served on {@code path}, as an {@code Allow} value; null when no extension route is there. */
    String allow(String path) {
        Set<String> m = methods.get(path);
        return m == null ? null : String.join(", ", m);
    }

    /** {@code path} itself when it is an extension route (a fixed string, so a bounded label), else null. */
    String route(String path) {
        return methods.containsKey(path) ? path : null;
    }
}
