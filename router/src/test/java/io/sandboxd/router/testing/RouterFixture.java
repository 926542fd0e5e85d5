package io.sandboxd.router.testing;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sandboxd.router.authz.AllowAllAuthorizer;
import io.sandboxd.router.authz.Authorizer;
import io.sandboxd.router.metrics.RouterMetrics;
import io.sandboxd.router.proxy.RouterConfig;
import io.sandboxd.router.proxy.RouterServer;
import io.sandboxd.router.resolve.HostResolver;
import io.sandboxd.router.resolve.PodCache;
import io.sandboxd.router.resolve.TargetResolver;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** An in-process router on 127.0.0.1 with injectable resolver, cache and authorizer. */
public final class RouterFixture implements AutoCloseable {
  public static final String DOMAIN = "test.local";

  public final RouterServer server;
  public final RouterMetrics metrics;
  public final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  public final List<String> dnsLookups = new CopyOnWriteArrayList<>();
  private final ExecutorService blocking = Executors.newCachedThreadPool();
  public final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(30)).build();

  public static RouterConfig config() {
    return RouterConfig.defaults()
        .withPort("127.0.0.1", 0)
        .withClusterDomain(DOMAIN)
        .withRetries(0, Duration.ofMillis(50), Duration.ofMillis(200))
        .withIoThreads(2);
  }

  /**
   * @param dnsNames names that resolve to 127.0.0.1 (any other name: UnknownHostException)
   */
  public RouterFixture(RouterConfig cfg, PodCache cache, Authorizer authz, List<String> dnsNames)
      throws InterruptedException {
    HostResolver dns = name -> {
      dnsLookups.add(name);
      if (dnsNames.contains(name)) {
        return InetAddress.getByAddress(name, new byte[] {127, 0, 0, 1});
      }
      throw new UnknownHostException(name);
    };
    metrics = new RouterMetrics(registry, cache);
    TargetResolver resolver = new TargetResolver(cache, dns, cfg.clusterDomain(), blocking);
    server = new RouterServer(cfg, resolver, authz, metrics, cache::hasSynced, null).start();
  }

  public RouterFixture(RouterConfig cfg) throws InterruptedException {
    this(cfg, PodCache.DISABLED, new AllowAllAuthorizer(), List.of());
  }

  public int port() {
    return server.port();
  }

  public URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port() + pathAndQuery);
  }

  /** A request aimed at a loopback backend through X-Sandbox-Pod-IP. */
  public HttpRequest.Builder toPodIp(int backendPort, String pathAndQuery) {
    return HttpRequest.newBuilder(uri(pathAndQuery))
        .timeout(Duration.ofSeconds(60))
        .header("X-Sandbox-ID", "sb")
        .header("X-Sandbox-Pod-IP", "127.0.0.1")
        .header("X-Sandbox-Port", Integer.toString(backendPort));
  }

  @Override
  public void close() {
    server.close();
    blocking.shutdownNow();
  }
}
