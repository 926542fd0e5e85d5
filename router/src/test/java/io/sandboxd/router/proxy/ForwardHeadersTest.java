package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

class ForwardHeadersTest {
    private static HttpRequest request() {
        HttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/orig");
        r.headers()
                .set("Host", "router.example")
                .set("Authorization", "Bearer x")
                .set("Proxy-Authorization", "Basic y")
                .set("Origin", "https://ui.example")
                .set("Connection", "keep-alive, X-Hop")
                .set("X-Hop", "1")
                .set("Keep-Alive", "timeout=5")
                .set("TE", "trailers")
                .set("X-Forwarded-For", "6.6.6.6")
                .set("Transfer-Encoding", "chunked")
                .set("X-App", "kept");
        return r;
    }

    @Test
    void ordinaryRequest() {
        HttpRequest out = ForwardHeaders.forBackend(request(), "/fwd", "10.0.0.5:8888", "192.0.2.1", false);
        assertThat(out.uri()).isEqualTo("/fwd");
        assertThat(out.method()).isEqualTo(HttpMethod.POST);
        var h = out.headers();
        assertThat(h.get("Host")).isEqualTo("10.0.0.5:8888");
        assertThat(h.contains("Authorization")).isFalse();
        assertThat(h.contains("Proxy-Authorization")).isFalse();
        assertThat(h.get("Origin")).isEqualTo("https://ui.example");
        assertThat(h.contains("Connection")).isFalse();
        assertThat(h.contains("X-Hop")).isFalse();
        assertThat(h.contains("Keep-Alive")).isFalse();
        assertThat(h.contains("TE")).isFalse();
        assertThat(h.getAll("X-Forwarded-For")).containsExactly("192.0.2.1");
        assertThat(h.get("X-Forwarded-Host")).isEqualTo("router.example");
        assertThat(h.get("X-Forwarded-Proto")).isEqualTo("http");
        assertThat(h.get("Transfer-Encoding")).isEqualTo("chunked");
        assertThat(h.get("X-App")).isEqualTo("kept");
    }

    @Test
    void upgradeRequestDropsOriginKeepsUpgrade() {
        HttpRequest in = request();
        in.headers().set("Connection", "Upgrade").set("Upgrade", "websocket").remove("Transfer-Encoding");
        assertThat(ForwardHeaders.isUpgrade(in.headers())).isTrue();
        HttpRequest out = ForwardHeaders.forBackend(in, "/ws", "h:1", "192.0.2.1", true);
        assertThat(out.headers().contains("Origin")).isFalse();
        assertThat(out.headers().contains("Authorization")).isFalse();
        assertThat(out.headers().get("Connection")).isEqualToIgnoringCase("upgrade");
        assertThat(out.headers().get("Upgrade")).isEqualTo("websocket");
    }

    @Test
    void upgradeDetectionNeedsTheConnectionToken() {
        HttpRequest in = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
        in.headers().set("Upgrade", "websocket");
        assertThat(ForwardHeaders.isUpgrade(in.headers())).isFalse();
        in.headers().set("Connection", "keep-alive, Upgrade");
        assertThat(ForwardHeaders.isUpgrade(in.headers())).isTrue();
    }

    @Test
    void responseHopByHopStripped() {
        HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        r.headers()
                .set("Connection", "close")
                .set("Keep-Alive", "x")
                .set("Content-Length", "3")
                .set("Upgrade", "h2c");
        ForwardHeaders.sanitizeResponse(r, false);
        assertThat(r.headers().names()).containsExactly("Content-Length");
        HttpResponse sw = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS);
        sw.headers().set("Connection", "Upgrade").set("Upgrade", "websocket").set("Sec-WebSocket-Accept", "abc");
        ForwardHeaders.sanitizeResponse(sw, true);
        assertThat(sw.headers().get("Upgrade")).isEqualTo("websocket");
        assertThat(sw.headers().get("Sec-WebSocket-Accept")).isEqualTo("abc");
    }
}
