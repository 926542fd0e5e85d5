package io.sandboxd.router.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.sandboxd.logging.LogFormat;
import io.sandboxd.logging.LogSetup;
import io.sandboxd.router.admin.AdminServer;
import io.sandboxd.router.authz.AllowAllAuthorizer;
import io.sandboxd.router.authz.Authorizer;
import io.sandboxd.router.authz.ScopedAuthorizer;
import io.sandboxd.router.authz.TokenReviewAuthorizer;
import io.sandboxd.router.metrics.RouterMetrics;
import io.sandboxd.router.proxy.RouterConfig;
import io.sandboxd.router.proxy.RouterServer;
import io.sandboxd.router.proxy.Transport;
import io.sandboxd.router.resolve.HostResolver;
import io.sandboxd.router.resolve.InformerPodCache;
import io.sandboxd.router.resolve.InformerServiceCache;
import io.sandboxd.router.resolve.PodCache;
import io.sandboxd.router.resolve.SandboxServices;
import io.sandboxd.router.resolve.TargetResolver;
import io.sandboxd.router.vetting.AddressClass;
import io.sandboxd.router.vetting.AddressPolicy;
import io.sandboxd.router.vetting.Cidr;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar sandboxd-router.jar [flags]}: the data-plane router. Flags > environment > defaults. */
@Command(
        name = "sandboxd-router",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = "Reverse proxy to sandbox Pods, routed by X-Sandbox-* headers or a path prefix.")
public final class RouterMain implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(RouterMain.class);

    @Option(names = "--bind", defaultValue = "0.0.0.0", description = "Listen address (default ${DEFAULT-VALUE}).")
    String bind;

    @Option(
            names = "--port",
            defaultValue = "8080",
            description = "Proxy port (default ${DEFAULT-VALUE}; 0 = ephemeral).")
    int port;

    @Option(
            names = "--admin-port",
            defaultValue = "8081",
            description = "Port for /healthz, /readyz and /metrics (default ${DEFAULT-VALUE}; -1 = off).")
    int adminPort;

    @Option(
            names = "--path-routing-prefix",
            defaultValue = "",
            description = "Route <prefix>/<namespace>/<id>/<port>/<rest> (e.g. /router); empty = off.")
    String pathRoutingPrefix;

    @Option(
            names = "--cluster-domain",
            defaultValue = "${env:CLUSTER_DOMAIN:-cluster.local}",
            description = "Cluster DNS domain for <id>.<ns>.svc.<domain> (env CLUSTER_DOMAIN; default cluster.local).")
    String clusterDomain;

    @Option(
            names = "--proxy-timeout",
            defaultValue = "${env:PROXY_TIMEOUT_SECONDS:-180}",
            description =
                    "End-to-end bound for ordinary requests, not upgraded connections (env PROXY_TIMEOUT_SECONDS; default 180s).")
    String proxyTimeout;

    @Option(
            names = "--connect-timeout",
            defaultValue = "30s",
            description = "Backend connect timeout (default ${DEFAULT-VALUE}).")
    String connectTimeout;

    @Option(
            names = "--response-header-timeout",
            defaultValue = "30s",
            description = "From request sent to response headers (default ${DEFAULT-VALUE}).")
    String responseHeaderTimeout;

    @Option(
            names = "--upstream-max-retries",
            defaultValue = "3",
            description = "Retries on connect/DNS errors, 200 ms doubling (default ${DEFAULT-VALUE}).")
    int maxRetries;

    @Option(
            names = "--upstream-retry-max-delay",
            defaultValue = "2s",
            description = "Cap on one retry delay (default ${DEFAULT-VALUE}).")
    String retryMaxDelay;

    @Option(
            names = "--allow-loopback-pod-ip",
            defaultValue = "false",
            description = "Accept a loopback X-Sandbox-Pod-IP (tests and local benchmarks only).")
    boolean allowLoopbackPodIp;

    @Option(
            names = "--deny-cidr",
            paramLabel = "CIDR",
            description = "Never dial addresses in this range, even if --allow-cidr covers it (repeatable).")
    List<String> denyCidrs = new ArrayList<>();

    @Option(
            names = "--allow-cidr",
            paramLabel = "CIDR",
            description =
                    "Dial this range although a restricted class (loopback, link-local, CGNAT, unique-local, ...) "
                            + "holds it, e.g. a Pod CIDR inside 100.64.0.0/10 (repeatable).")
    List<String> allowCidrs = new ArrayList<>();

    @Option(
            names = "--cache-enabled",
            defaultValue = "true",
            negatable = true,
            fallbackValue = "true",
            description =
                    "Resolve through informer caches of Ready sandbox Pods and of sandbox Services (needs list/watch "
                            + "pods and services; without them only X-Sandbox-Pod-IP routes; default ${DEFAULT-VALUE}).")
    boolean cacheEnabled;

    @Option(
            names = "--cache-namespace",
            defaultValue = "",
            description = "Watch only this namespace (default: all namespaces).")
    String cacheNamespace;

    @Option(
            names = "--authz-mode",
            defaultValue = "allow-all",
            description = "allow-all (default; unsafe for production), tokenreview (any cluster identity reaches every "
                    + "sandbox; X-Sandbox-Pod-IP refused) or scoped (TokenReview + SubjectAccessReview per sandbox).")
    String authzMode;

    @Option(names = "--authz-tokenreview-audience", description = "Audience(s) for TokenReview (repeatable).")
    List<String> audiences = new ArrayList<>();

    @Option(
            names = "--authz-cache-ttl",
            defaultValue = "30s",
            description =
                    "How long TokenReview and SubjectAccessReview verdicts are reused (default ${DEFAULT-VALUE}).")
    String authzCacheTtl;

    @Option(
            names = "--authz-cache-size",
            defaultValue = "2048",
            description =
                    "Entries kept by each verdict cache, least recently used dropped first (default ${DEFAULT-VALUE}).")
    int authzCacheSize;

    @Option(
            names = "--authz-tokenreview-timeout",
            defaultValue = "10s",
            description =
                    "Bound on one TokenReview or SubjectAccessReview call; failures answer 500 (default ${DEFAULT-VALUE}).")
    String tokenReviewTimeout;

    @Option(names = "--io-threads", defaultValue = "0", description = "Netty event-loop threads (0 = 2 x cores).")
    int ioThreads;

    @Option(
            names = "--log-format",
            defaultValue = "${env:SANDBOXD_LOG_FORMAT:-text}",
            description = "Log format of every stderr line: text or json, one object per line"
                    + " (env SANDBOXD_LOG_FORMAT, default ${DEFAULT-VALUE}).")
    String logFormat;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RouterMain()).execute(args));
    }

    @Override
    public void run() {
        // the command line only: a test that calls start() in its own JVM keeps its logging
        LogSetup.install(logFormat());
        try (Running r = start()) {
            CountDownLatch stop = new CountDownLatch(1);
            // logged by the hook: the JVM may halt before the main thread gets past await()
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                log.info("shutting down");
                                stop.countDown();
                            },
                            "router-shutdown"));
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    LogFormat logFormat() {
        try {
            return LogFormat.choose(logFormat, true, null);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
    }

    /** Everything that was started, closed in reverse order. */
    public record Running(
            RouterServer router,
            AdminServer admin,
            InformerPodCache cache,
            InformerServiceCache services,
            Authorizer authz,
            KubernetesClient client,
            EventLoopGroup group,
            ExecutorService blocking)
            implements AutoCloseable {
        @Override
        public void close() {
            router.close();
            if (authz instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    log.debug("closing authorizer: {}", e.toString());
                }
            }
            if (admin != null) {
                admin.close();
            }
            if (cache != null) {
                cache.close();
            }
            if (services != null) {
                services.close();
            }
            if (client != null) {
                client.close();
            }
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            blocking.shutdownNow();
        }
    }

    public Running start() throws InterruptedException {
        RouterConfig cfg = new RouterConfig(
                bind,
                port,
                pathRoutingPrefix,
                allowLoopbackPodIp,
                addressPolicy(),
                clusterDomain,
                DurationParser.parse(proxyTimeout),
                DurationParser.parse(connectTimeout),
                DurationParser.parse(responseHeaderTimeout),
                maxRetries,
                Duration.ofMillis(200),
                DurationParser.parse(retryMaxDelay),
                ioThreads);
        if (!List.of("allow-all", "tokenreview", "scoped").contains(authzMode)) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--authz-mode must be allow-all, tokenreview or scoped, not " + authzMode);
        }
        boolean tokenReview = !"allow-all".equals(authzMode);
        ExecutorService blocking = blockingPool();
        KubernetesClient client = cacheEnabled || tokenReview ? new KubernetesClientBuilder().build() : null;
        InformerPodCache informer = null;
        InformerServiceCache serviceInformer = null;
        PodCache cache = PodCache.DISABLED;
        SandboxServices services = SandboxServices.NONE;
        if (cacheEnabled) {
            informer = new InformerPodCache(client, cacheNamespace);
            informer.start();
            cache = informer;
            serviceInformer = new InformerServiceCache(client, cacheNamespace);
            serviceInformer.start();
            services = serviceInformer;
        } else {
            log.warn("--no-cache-enabled: sandbox Services cannot be verified, so only X-Sandbox-Pod-IP routes");
        }
        Authorizer authz = authorizer(client, blocking);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RouterMetrics metrics = new RouterMetrics(registry, cache);
        TargetResolver resolver = new TargetResolver(cache, services, HostResolver.system(), clusterDomain, blocking);
        EventLoopGroup group = Transport.group(ioThreads, "router-io");
        PodCache c = cache;
        InformerServiceCache si = serviceInformer;
        BooleanSupplier ready = () -> c.hasSynced() && (si == null || si.hasSynced());
        RouterServer router = new RouterServer(cfg, resolver, authz, metrics, ready, group).start();
        AdminServer admin = adminPort < 0 ? null : new AdminServer(registry, ready, group).start(bind, adminPort);
        if (admin != null) {
            log.info("admin (/healthz, /readyz, /metrics) on port {}", admin.port());
        }
        return new Running(router, admin, informer, serviceInformer, authz, client, group, blocking);
    }

    private Authorizer authorizer(KubernetesClient client, ExecutorService blocking) {
        Duration ttl = DurationParser.parse(authzCacheTtl);
        Duration timeout = DurationParser.parse(tokenReviewTimeout);
        switch (authzMode) {
            case "scoped" -> {
                log.info(
                        "--authz-mode=scoped: TokenReview, then SubjectAccessReview 'create sandboxes/proxy' "
                                + "(agents.x-k8s.io) per sandbox; X-Sandbox-Pod-IP also needs 'create sandboxes/pod-ip' cluster-wide; "
                                + "verdicts cached {} (at most {} entries each)",
                        ttl,
                        authzCacheSize);
                return new ScopedAuthorizer(client, audiences, ttl, authzCacheSize, timeout, blocking);
            }
            case "tokenreview" -> {
                log.warn("--authz-mode=tokenreview: any token the cluster accepts reaches every sandbox "
                        + "(X-Sandbox-Pod-IP refused); use --authz-mode=scoped to scope callers to sandboxes.");
                return new TokenReviewAuthorizer(client, audiences, ttl, authzCacheSize, timeout, blocking);
            }
            default -> {
                log.warn("--authz-mode=allow-all: any caller that reaches this port can reach every sandbox. "
                        + "UNSAFE FOR PRODUCTION; use --authz-mode=scoped.");
                return new AllowAllAuthorizer();
            }
        }
    }

    /** The built-in restricted classes with the operator's ranges, all logged so the effective rules are on record. */
    AddressPolicy addressPolicy() {
        List<Cidr> deny;
        List<Cidr> allow;
        try {
            deny = denyCidrs.stream().map(Cidr::parse).toList();
            allow = allowCidrs.stream().map(Cidr::parse).toList();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--deny-cidr/--allow-cidr: " + e.getMessage());
        }
        log.info(
                "never dialled: {}; denied ranges (--deny-cidr): {}; allowed ranges (--allow-cidr): {}{}",
                java.util.Arrays.stream(AddressClass.values())
                        .map(AddressClass::describe)
                        .toList(),
                deny,
                allow,
                allowLoopbackPodIp ? "; loopback allowed in X-Sandbox-Pod-IP (--allow-loopback-pod-ip)" : "");
        return new AddressPolicy(deny, allow);
    }

    /** DNS lookups and TokenReview calls: bounded threads and queue; overflow fails the request, never the loop. */
    static ExecutorService blockingPool() {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor p =
                new ThreadPoolExecutor(32, 32, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(4096), r -> {
                    Thread t = new Thread(r, "router-lookup-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        p.allowCoreThreadTimeOut(true);
        return p;
    }
}
