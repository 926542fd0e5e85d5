package io.sandboxd.router.routing;

import io.netty.handler.codec.http.HttpHeaders;
import io.sandboxd.router.vetting.IpLiteral;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Turns a request line + headers into a {@link Route}; path prefix first, then headers. */
public final class RouteParser {
    public static final String H_ID = "X-Sandbox-ID";
    public static final String H_NAMESPACE = "X-Sandbox-Namespace";
    public static final String H_PORT = "X-Sandbox-Port";
    public static final String H_POD_IP = "X-Sandbox-Pod-IP";
    public static final String H_UID = "X-Sandbox-UID";
    private static final String[] ROUTING_HEADERS = {H_ID, H_NAMESPACE, H_PORT, H_POD_IP, H_UID};
    public static final String DEFAULT_NAMESPACE = "default";
    public static final int DEFAULT_PORT = 8888;

    private final PathRoute pathRoute; // null when path routing is off

    public RouteParser(String pathRoutingPrefix) {
        this.pathRoute =
                pathRoutingPrefix == null || pathRoutingPrefix.isEmpty() ? null : new PathRoute(pathRoutingPrefix);
    }

    /** Whether the request names a sandbox at all (else /healthz etc. may be answered locally). */
    public boolean isRouted(String target, HttpHeaders headers) {
        return headers.contains(H_ID) || (pathRoute != null && pathRoute.matches(originForm(target)));
    }

    public Route parse(String rawTarget, HttpHeaders headers) throws RouteException {
        String target = originForm(rawTarget);
        if (pathRoute != null && pathRoute.matches(target)) {
            PathRoute.Parsed p = pathRoute.parse(target);
            checkLabels(p.namespace(), p.sandboxId());
            int port = RouteValidation.parsePort(p.port());
            if (port < 0) {
                throw RouteException.badRequest("Invalid port format.");
            }
            return new Route(p.namespace(), p.sandboxId(), port, null, null, p.forwardUri(), true);
        }
        for (String h : ROUTING_HEADERS) {
            if (headers.getAll(h).size() > 1) {
                throw RouteException.badRequest(h + " must be given at most once.");
            }
        }
        String id = headers.get(H_ID);
        if (id == null || id.isEmpty()) {
            throw RouteException.badRequest("X-Sandbox-ID header is required.");
        }
        String ns = headers.get(H_NAMESPACE);
        if (ns == null || ns.isEmpty()) {
            ns = DEFAULT_NAMESPACE;
        }
        if (!RouteValidation.isDns1123Label(id)) {
            throw RouteException.badRequest("Invalid sandbox ID format.");
        }
        if (!RouteValidation.isDns1123Label(ns)) {
            throw RouteException.badRequest("Invalid namespace format.");
        }
        String portText = headers.get(H_PORT);
        int port = DEFAULT_PORT;
        if (portText != null && !portText.isEmpty()) {
            port = RouteValidation.parsePort(portText);
            if (port < 0) {
                throw RouteException.badRequest("Invalid port format.");
            }
        }
        InetAddress podIp = null;
        String podIpText = headers.get(H_POD_IP);
        if (podIpText != null && !podIpText.isEmpty()) {
            podIp = podIp(podIpText);
        }
        String uid = headers.get(H_UID);
        return new Route(ns, id, port, podIp, uid == null || uid.isEmpty() ? null : uid, target, false);
    }

    /**
     * A strict IP literal (never a host name: no lookup happens here). Whether it may be dialled is
     * decided later, with every other address, by the dial policy.
     */
    private static InetAddress podIp(String text) throws RouteException {
        byte[] raw = IpLiteral.parse(text);
        if (raw == null) {
            throw RouteException.badRequest("Invalid target IP address.");
        }
        try {
            return InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw RouteException.badRequest("Invalid target IP address.");
        }
    }

    private static void checkLabels(String ns, String id) throws RouteException {
        if (!RouteValidation.isDns1123Label(ns)) {
            throw RouteException.badRequest("Invalid namespace format.");
        }
        if (!RouteValidation.isDns1123Label(id)) {
            throw RouteException.badRequest("Invalid sandbox ID format.");
        }
    }

    /** An absolute-form target (http://host/path) is reduced to its origin form (/path). */
    static String originForm(String target) {
        if (target.startsWith("/")) {
            return target;
        }
        int scheme = target.indexOf("://");
        if (scheme > 0) {
            int slash = target.indexOf('/', scheme + 3);
            int q = target.indexOf('?', scheme + 3);
            if (slash < 0 || (q >= 0 && q < slash)) {
                return q < 0 ? "/" : "/" + target.substring(q);
            }
            return target.substring(slash);
        }
        return target.isEmpty() || "*".equals(target) ? "/" : "/" + target;
    }
}
