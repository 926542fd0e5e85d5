package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpHeaders;
import io.sandboxd.router.authz.AllowAllAuthorizer;
import io.sandboxd.router.resolve.PodCache;
import io.sandboxd.router.testing.RouterFixture;
import io.sandboxd.router.testing.WsEchoBackend;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import java.net.URI;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Real WebSocket upgrades through the router, against a Netty WebSocket echo server. */
class WebSocketTest {
    static final Duration PROXY_TIMEOUT = Duration.ofSeconds(3);
    static WsEchoBackend ws;
    static RouterFixture router;

    @BeforeAll
    static void start() throws Exception {
        ws = new WsEchoBackend();
        router = new RouterFixture(
                RouterFixture.config()
                        .withAllowLoopbackPodIp(true)
                        .withPathRoutingPrefix("/router")
                        .withAddressPolicy(RouterFixture.loopbackAllowed())
                        .withTimeouts(PROXY_TIMEOUT, Duration.ofSeconds(5), Duration.ofSeconds(10)),
                PodCache.DISABLED,
                new AllowAllAuthorizer(),
                List.of("wsb.default.svc." + RouterFixture.DOMAIN));
    }

    @AfterAll
    static void stop() {
        router.close();
        ws.close();
    }

    /** Collects text messages and the close code. */
    static final class Collector implements WebSocket.Listener {
        final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                messages.add(partial.toString());
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.complete(1006);
        }
    }

    @Test
    void echoOutlivesProxyTimeoutAndOriginAndAuthorizationAreStripped() throws Exception {
        Collector c = new Collector();
        int handshakesBefore = ws.handshakes.size();
        WebSocket socket = router.http
                .newWebSocketBuilder()
                .header("X-Sandbox-ID", "wsb")
                .header("X-Sandbox-Pod-IP", "127.0.0.1")
                .header("X-Sandbox-Port", Integer.toString(ws.port()))
                .header("Origin", "https://ide.example")
                .header("Authorization", "Bearer caller-secret")
                .buildAsync(URI.create("ws://127.0.0.1:" + router.port() + "/"), c)
                .get(60, TimeUnit.SECONDS);
        socket.sendText("one", true).get(60, TimeUnit.SECONDS);
        assertThat(c.messages.poll(60, TimeUnit.SECONDS)).isEqualTo("echo:one");
        assertThat(router.metrics.activeUpgrades()).isEqualTo(1);

        // Idle for well over the proxy timeout: an ordinary request would have been cut by now.
        Thread.sleep(PROXY_TIMEOUT.multipliedBy(2).plusMillis(500).toMillis());
        assertThat(c.closed).isNotDone();
        socket.sendText("two", true).get(60, TimeUnit.SECONDS);
        assertThat(c.messages.poll(60, TimeUnit.SECONDS)).isEqualTo("echo:two");

        // A larger message crosses the tunnel in several reads.
        String big = "x".repeat(300_000);
        socket.sendText(big, true).get(60, TimeUnit.SECONDS);
        String bigEcho = c.messages.poll(60, TimeUnit.SECONDS);
        assertThat(bigEcho).isNotNull();
        assertThat(bigEcho.length()).isEqualTo(5 + big.length());
        assertThat(bigEcho.equals("echo:" + big)).as("large echo intact").isTrue();

        HttpHeaders hs = ws.handshakes.get(handshakesBefore);
        assertThat(hs.get("Origin")).isNull();
        assertThat(hs.get("Authorization")).isNull();
        assertThat(hs.get("Upgrade")).isEqualToIgnoringCase("websocket");
        assertThat(hs.get("Host")).isEqualTo("127.0.0.1:" + ws.port());

        socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(60, TimeUnit.SECONDS);
        assertThat(c.closed.get(60, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (router.metrics.activeUpgrades() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(router.metrics.activeUpgrades()).isZero();
    }

    @Test
    void pathRoutedWebSocketForBrowsers() throws Exception {
        Collector c = new Collector();
        WebSocket socket = router.http
                .newWebSocketBuilder()
                .buildAsync(
                        URI.create("ws://127.0.0.1:" + router.port() + "/router/default/wsb/" + ws.port() + "/ws"), c)
                .get(60, TimeUnit.SECONDS);
        socket.sendText("hi", true).get(60, TimeUnit.SECONDS);
        assertThat(c.messages.poll(60, TimeUnit.SECONDS)).isEqualTo("echo:hi");
        assertThat(router.dnsLookups).contains("wsb.default.svc." + RouterFixture.DOMAIN);
        assertThat(ws.handshakes.get(ws.handshakes.size() - 1).get("Host"))
                .isEqualTo("wsb.default.svc." + RouterFixture.DOMAIN + ":" + ws.port());
        socket.abort();
    }

    @Test
    void upgradeRejectedByBackendIsRelayedAsAnOrdinaryResponse() throws Exception {
        // The echo server only upgrades "websocket"; an unknown protocol gets a plain HTTP answer.
        var r = RawHttp.exchange(
                "127.0.0.1",
                router.port(),
                RawRequest.get("/router/default/wsb/" + ws.port() + "/nows").closing(),
                Duration.ofSeconds(30));
        assertThat(r.status()).isBetween(400, 499);
    }
}
