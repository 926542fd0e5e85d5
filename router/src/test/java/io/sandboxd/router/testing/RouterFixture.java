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
import io.sandboxd.router.resolve.SandboxServices;
import io.sandboxd.router.resolve.TargetResolver;
import io.sandboxd.router.vetting.AddressPolicy;
import io.sandboxd.router.vetting.Cidr;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

/** An in-process router on 127.0.0.1 with injectable resolver, cache and authorizer. */
public final class RouterFixture implements AutoCloseable {
    public static final String DOMAIN = "test.local";
    public static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    public final RouterServer server;
    public final RouterMetrics metrics;
    public final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    public final List<String> dnsLookups = new CopyOnWriteArrayList<>();
    private final ExecutorService blocking = Executors.newCachedThreadPool();
    public final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(30))
            .build();

    public static RouterConfig config() {
        return RouterConfig.defaults()
                .withPort("127.0.0.1", 0)
                .withClusterDomain(DOMAIN)
                .withRetries(0, Duration.ofMillis(50), Duration.ofMillis(200))
                .withIoThreads(2);
    }

    /** Loopback dialable however it was found: for tests whose backends listen on 127.0.0.1. */
    public static AddressPolicy loopbackAllowed() {
        return AddressPolicy.builtIn().allowing(List.of(Cidr.parse("127.0.0.0/8")));
    }

    /**
     * @param dnsNames names that resolve to 127.0.0.1 and belong to a Sandbox's Service (any other
     *     name: no sandbox Service)
     */
    public RouterFixture(RouterConfig cfg, PodCache cache, Authorizer authz, List<String> dnsNames)
            throws InterruptedException {
        this(
                cfg,
                cache,
                (ns, name) -> dnsNames.contains(name + "." + ns + ".svc." + DOMAIN),
                authz,
                dnsNames.stream().collect(Collectors.toMap(n -> n, n -> List.of(LOOPBACK))));
    }

    /**
     * @param services which Services belong to a Sandbox
     * @param dns what each name resolves to (any other name: UnknownHostException)
     */
    public RouterFixture(
            RouterConfig cfg,
            PodCache cache,
            SandboxServices services,
            Authorizer authz,
            Map<String, List<InetAddress>> dns)
            throws InterruptedException {
        this(cfg, cache, services, authz, name -> {
            List<InetAddress> a = dns.get(name);
            if (a == null) {
                throw new UnknownHostException(name);
            }
            return a;
        });
    }

    /** @param dns answers every lookup (each is recorded in {@link #dnsLookups} first) */
    public RouterFixture(RouterConfig cfg, PodCache cache, SandboxServices services, Authorizer authz, HostResolver dns)
            throws InterruptedException {
        HostResolver resolver = name -> {
            dnsLookups.add(name);
            return dns.resolve(name);
        };
        metrics = new RouterMetrics(registry, cache);
        server = new RouterServer(
                        cfg,
                        new TargetResolver(cache, services, resolver, cfg.clusterDomain(), blocking),
                        authz,
                        metrics,
                        cache::hasSynced,
                        null)
                .start();
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
