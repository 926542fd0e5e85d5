package io.sandboxd.router.proxy;

import io.sandboxd.router.vetting.AddressPolicy;
import java.time.Duration;

/**
 * Data-plane settings.
 *
 * @param proxyTimeout bounds each ordinary request end to end; never applied after an upgrade
 * @param responseHeaderTimeout from the request being fully sent until the response head arrives
 * @param maxRetries connect/DNS retries (200 ms, 400 ms, 800 ms ... capped by retryMaxDelay)
 * @param allowLoopbackPodIp X-Sandbox-Pod-IP may name loopback (tests and local benchmarks only)
 * @param addressPolicy which addresses may be dialled, however they were found
 */
public record RouterConfig(
        String bindHost,
        int port,
        String pathRoutingPrefix,
        boolean allowLoopbackPodIp,
        AddressPolicy addressPolicy,
        String clusterDomain,
        Duration proxyTimeout,
        Duration connectTimeout,
        Duration responseHeaderTimeout,
        int maxRetries,
        Duration retryBaseDelay,
        Duration retryMaxDelay,
        int ioThreads) {

    public static RouterConfig defaults() {
        return new RouterConfig(
                "0.0.0.0",
                8080,
                "",
                false,
                AddressPolicy.builtIn(),
                "cluster.local",
                Duration.ofSeconds(180),
                Duration.ofSeconds(30),
                Duration.ofSeconds(30),
                3,
                Duration.ofMillis(200),
                Duration.ofSeconds(2),
                0);
    }

    public RouterConfig withPort(String host, int p) {
        return new RouterConfig(
                host,
                p,
                pathRoutingPrefix,
                allowLoopbackPodIp,
                addressPolicy,
                clusterDomain,
                proxyTimeout,
                connectTimeout,
                responseHeaderTimeout,
                maxRetries,
                retryBaseDelay,
                retryMaxDelay,
                ioThreads);
    }

    public RouterConfig withPathRoutingPrefix(String prefix) {
        return new RouterConfig(
                bindHost,
                port,
                prefix,
                allowLoopbackPodIp,
                addressPolicy,
                clusterDomain,
                proxyTimeout,
                connectTimeout,
                responseHeaderTimeout,
                maxRetries,
                retryBaseDelay,
                retryMaxDelay,
                ioThreads);
    }

    public RouterConfig withAllowLoopbackPodIp(boolean allow) {
        return new RouterConfig(
                bindHost,
                port,
                pathRoutingPrefix,
                allow,
                addressPolicy,
                clusterDomain,
                proxyTimeout,
                connectTimeout,
                responseHeaderTimeout,
                maxRetries,
                retryBaseDelay,
                retryMaxDelay,
                ioThreads);
    }

    public RouterConfig withAddressPolicy(AddressPolicy policy) {
        return new RouterConfig(
                bindHost,
                port,
                pathRoutingPrefix,
                allowLoopbackPodIp,
                policy,
                clusterDomain,
                proxyTimeout,
                connectTimeout,
                responseHeaderTimeout,
                maxRetries,
                retryBaseDelay,
                retryMaxDelay,
                ioThreads);
    }

    public RouterConfig withClusterDomain(String domain) {
        return new RouterConfig(
                bindHost,
                port,
                pathRoutingPrefix,
                allowLoopbackPodIp,
                addressPolicy,
                domain,
                proxyTimeout,
                connectTimeout,
                responseHeaderTimeout,
                maxRetries,
                retryBaseDelay,
                retryMaxDelay,
                ioThreads);
    }

    public RouterConfig withTimeouts(Duration proxy, Duration connect, Duration responseHeader) {
        return new RouterConfig(
                bindHost,
                port,
                pathRoutingPrefix,
                allowLoopbackPodIp,
                addressPolicy,
                clusterDomain,
                proxy,
                connect,
                responseHeader,
                maxRetries,
                retryBaseDelay,
                retryMaxDelay,
                ioThreads);
    }

    public RouterConfig withRetries(int max, Duration base, Duration cap) {
        return new RouterConfig(
                bindHost,
                port,
                pathRoutingPrefix,
                allowLoopbackPodIp,
                addressPolicy,
                clusterDomain,
                proxyTimeout,
                connectTimeout,
                responseHeaderTimeout,
                max,
                base,
                cap,
                ioThreads);
    }

    public RouterConfig withIoThreads(int n) {
        return new RouterConfig(
                bindHost,
                port,
                pathRoutingPrefix,
                allowLoopbackPodIp,
                addressPolicy,
                clusterDomain,
                proxyTimeout,
                connectTimeout,
                responseHeaderTimeout,
                maxRetries,
                retryBaseDelay,
                retryMaxDelay,
                n);
    }

    /** Delay before retry number {@code attempt} (1-based): base * 2^(attempt-1), capped. */
    public Duration retryDelay(int attempt) {
        long ms = retryBaseDelay.toMillis() << Math.min(attempt - 1, 20);
        return Duration.ofMillis(Math.min(ms, retryMaxDelay.toMillis()));
    }
}
