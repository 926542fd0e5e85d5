package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.router.authz.AllowAllAuthorizer;
import io.sandboxd.router.resolve.HostResolver;
import io.sandboxd.router.resolve.PodCache;
import io.sandboxd.router.resolve.ResolvedTarget;
import io.sandboxd.router.testing.FixedPodCache;
import io.sandboxd.router.testing.H2EchoBackend;
import io.sandboxd.router.testing.H2RawClient;
import io.sandboxd.router.testing.HttpBackend;
import io.sandboxd.router.testing.RouterFixture;
import io.sandboxd.router.vetting.AddressPolicy;
import io.sandboxd.router.vetting.Cidr;
import java.net.InetAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Addresses found by DNS or the informer cache are vetted like X-Sandbox-Pod-IP: a sandbox name
 * resolving to 127.0.0.1 is not proxied. Every target here is loopback, so even a check that wrongly
 * passed would reach only the test's own backend (whose request log then fails the test).
 */
class LoopbackVettingTest {
    static final String NAME = "sb.team-a.svc." + RouterFixture.DOMAIN;
    static HttpBackend backend;

    @BeforeAll
    static void start() throws Exception {
        backend = new HttpBackend();
    }

    @AfterAll
    static void stop() {
        backend.close();
    }

    private static RouterFixture router(RouterConfig config, PodCache cache) throws InterruptedException {
        return new RouterFixture(
                config,
                cache,
                (ns, n) -> true,
                new AllowAllAuthorizer(),
                Map.of(NAME, List.of(RouterFixture.LOOPBACK)));
    }

    private static HttpResponse<String> get(RouterFixture r, String podIp) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(r.uri("/v"))
                .timeout(Duration.ofSeconds(30))
                .header("X-Sandbox-ID", "sb")
                .header("X-Sandbox-Namespace", "team-a")
                .header("X-Sandbox-Port", Integer.toString(backend.port()));
        if (podIp != null) {
            b.header("X-Sandbox-Pod-IP", podIp);
        }
        return r.http.send(b.build(), BodyHandlers.ofString());
    }

    @Test
    void aSandboxNameResolvingToLoopbackIsNotProxied() throws Exception {
        try (RouterFixture r = router(RouterFixture.config(), PodCache.DISABLED)) {
            int before = backend.seen.size();
            HttpResponse<String> res = get(r, null);
            assertThat(res.statusCode()).isEqualTo(502);
            assertThat(res.body())
                    .isEqualTo("{\"detail\":\"Refusing to dial the backend sandbox team-a/sb: its dns address"
                            + " is loopback (127.0.0.0/8, ::1/128).\"}");
            assertThat(r.dnsLookups).containsExactly(NAME); // looked up once, refused, not retried
            assertThat(r.metrics.refusedAddressCount(ResolvedTarget.Source.DNS)).isEqualTo(1);
            assertThat(backend.seen).hasSize(before);
        }
    }

    @Test
    void aCachedPodIpOnLoopbackIsNotProxied() throws Exception {
        PodCache cache = new FixedPodCache(Map.of("team-a/sb", "127.0.0.1"));
        try (RouterFixture r = router(RouterFixture.config(), cache)) {
            int before = backend.seen.size();
            HttpResponse<String> res = get(r, null);
            assertThat(res.statusCode()).isEqualTo(502);
            assertThat(res.body()).contains("its cache address is loopback");
            assertThat(r.dnsLookups).isEmpty();
            assertThat(backend.seen).hasSize(before);
        }
    }

    @Test
    void allowCidrLiftsLoopbackForEverySourceAndDenyCidrWins() throws Exception {
        int before = backend.seen.size();
        AddressPolicy allow = AddressPolicy.builtIn().allowing(List.of(Cidr.parse("127.0.0.0/8")));
        try (RouterFixture r = router(RouterFixture.config().withAddressPolicy(allow), PodCache.DISABLED)) {
            assertThat(get(r, null).statusCode()).isEqualTo(200);
            assertThat(backend.seen).hasSize(before + 1);
        }
        AddressPolicy deny = new AddressPolicy(List.of(Cidr.parse("127.0.0.1/32")), List.of(Cidr.parse("127.0.0.0/8")));
        try (RouterFixture r = router(
                RouterFixture.config().withAddressPolicy(deny).withAllowLoopbackPodIp(true), PodCache.DISABLED)) {
            HttpResponse<String> viaHeader = get(r, "127.0.0.1");
            assertThat(viaHeader.statusCode()).isEqualTo(400);
            assertThat(viaHeader.body())
                    .isEqualTo("{\"detail\":\"Invalid target IP address: 127.0.0.1 is in denied range"
                            + " 127.0.0.1/32 (--deny-cidr).\"}");
            HttpResponse<String> viaDns = get(r, null);
            assertThat(viaDns.statusCode()).isEqualTo(502);
            assertThat(viaDns.body()).contains("its dns address is in denied range 127.0.0.1/32 (--deny-cidr)");
            assertThat(backend.seen).hasSize(before + 1);
        }
    }

    /**
     * DNS rebinding: the name first resolves to an allowed address, then to a refused one. The
     * router dials the address it vetted (a second lookup at connect time would get 127.0.0.2,
     * where nothing listens), over HTTP/1.1 and HTTP/2; the next request's lookup is refused.
     */
    @Test
    void theVettedAddressIsTheOneDialledWhateverTheNameSaysNext() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        HostResolver rebinding = name -> List.of(
                InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (lookups.getAndIncrement() % 2 == 0 ? 1 : 2)}));
        AddressPolicy onlyOne = AddressPolicy.builtIn().allowing(List.of(Cidr.parse("127.0.0.1/32")));
        try (H2EchoBackend h2Backend = new H2EchoBackend();
                RouterFixture r = new RouterFixture(
                        RouterFixture.config().withAddressPolicy(onlyOne),
                        PodCache.DISABLED,
                        (ns, n) -> true,
                        new AllowAllAuthorizer(),
                        rebinding)) {
            int before = backend.seen.size();
            assertThat(get(r, null).statusCode()).isEqualTo(200);
            assertThat(backend.seen).hasSize(before + 1);
            HttpResponse<String> rebound = get(r, null);
            assertThat(rebound.statusCode()).isEqualTo(502);
            assertThat(rebound.body()).contains("its dns address is loopback");

            try (H2RawClient h2 = new H2RawClient(r.port())) {
                var request = H2RawClient.request("GET", "/h2")
                        .add("x-sandbox-id", "sb")
                        .add("x-sandbox-namespace", "team-a")
                        .add("x-sandbox-port", Integer.toString(h2Backend.port()));
                assertThat(h2.exchange(request, null).status()).isEqualTo("200");
                assertThat(h2Backend.requests).hasSize(1);
                assertThat(h2.exchange(request, null).status()).isEqualTo("502");
                assertThat(h2Backend.requests).hasSize(1);
            }
            assertThat(r.dnsLookups).hasSize(4).containsOnly(NAME); // one lookup per request, none at connect
        }
    }

    @Test
    void loopbackPodIpFlagCoversOnlyTheHeader() throws Exception {
        try (RouterFixture r = router(RouterFixture.config().withAllowLoopbackPodIp(true), PodCache.DISABLED)) {
            int before = backend.seen.size();
            assertThat(get(r, "127.0.0.1").statusCode()).isEqualTo(200);
            assertThat(get(r, null).statusCode()).isEqualTo(502); // the same loopback, found by DNS
            assertThat(backend.seen).hasSize(before + 1);
        }
    }
}
