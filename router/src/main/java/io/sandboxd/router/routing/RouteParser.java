package io.sandboxd.router.routing;

import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetAddress;

/** Turns a request line + headers into a {@link Route}; path prefix first, then headers. */
public final class RouteParser {
  public static final String H_ID = "X-Sandbox-ID";
  public static final String H_NAMESPACE = "X-Sandbox-Namespace";
  public static final String H_PORT = "X-Sandbox-Port";
  public static final String H_POD_IP = "X-Sandbox-Pod-IP";
  public static final String H_UID = "X-Sandbox-UID";
  public static final String DEFAULT_NAMESPACE = "default";
  public static final int DEFAULT_PORT = 8888;

  private final PathRoute pathRoute; // null when path routing is off
  private final boolean allowLoopbackPodIp;

  public RouteParser(String pathRoutingPrefix, boolean allowLoopbackPodIp) {
    this.pathRoute =
        pathRoutingPrefix == null || pathRoutingPrefix.isEmpty() ? null : new PathRoute(pathRoutingPrefix);
    this.allowLoopbackPodIp = allowLoopbackPodIp;
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
      podIp = RouteValidation.vetPodIp(podIpText, allowLoopbackPodIp);
      if (podIp == null) {
        throw RouteException.badRequest("Invalid target IP address.");
      }
    }
    String uid = headers.get(H_UID);
    return new Route(ns, id, port, podIp, uid == null || uid.isEmpty() ? null : uid, target, false);
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
