package io.sandboxd.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import org.junit.jupiter.api.Test;

class PathRouteTest {
    final PathRoute p = new PathRoute("/router");

    @Test
    void prefixMustBeWellFormed() {
        assertThatThrownBy(() -> new PathRoute("router")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PathRoute("/router/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PathRoute("/")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void matchesOnlyWholeSegments() {
        assertThat(p.matches("/router/a/b/1/")).isTrue();
        assertThat(p.matches("/router/")).isTrue();
        assertThat(p.matches("/router")).isFalse();
        assertThat(p.matches("/routerx/a")).isFalse();
        assertThat(p.matches("/x/router/a")).isFalse();
    }

    @Test
    void remainderIsKeptByteForByte() throws RouteException {
        PathRoute.Parsed r = p.parse("/router/ns/id/8080/a%2Fb//c%20d/?q=%2F&x");
        assertThat(r.namespace()).isEqualTo("ns");
        assertThat(r.sandboxId()).isEqualTo("id");
        assertThat(r.port()).isEqualTo("8080");
        assertThat(r.forwardUri()).isEqualTo("/a%2Fb//c%20d/?q=%2F&x");
    }

    @Test
    void noRemainderMeansRoot() throws RouteException {
        assertThat(p.parse("/router/ns/id/80").forwardUri()).isEqualTo("/");
        assertThat(p.parse("/router/ns/id/80/").forwardUri()).isEqualTo("/");
        assertThat(p.parse("/router/ns/id/80?a=b").forwardUri()).isEqualTo("/?a=b");
    }

    @Test
    void segmentsAreDecoded() throws RouteException {
        PathRoute.Parsed r = p.parse("/router/n%73/i%64/8%30/x");
        assertThat(r.namespace()).isEqualTo("ns");
        assertThat(r.sandboxId()).isEqualTo("id");
        assertThat(r.port()).isEqualTo("80");
    }

    @Test
    void shapeAndEscapeErrors() {
        for (String bad : new String[] {
            "/router/",
            "/router/ns",
            "/router/ns/",
            "/router/ns/id",
            "/router/ns/id/",
            "/router//id/80/",
            "/router/ns//80/"
        }) {
            assertThatThrownBy(() -> p.parse(bad))
                    .as(bad)
                    .isInstanceOf(RouteException.class)
                    .hasMessage("Path-routed request must have the form /router/<namespace>/<id>/<port>/...");
        }
        for (String bad : new String[] {"/router/%/id/80/", "/router/ns/%4/80/", "/router/ns/id/%zz/"}) {
            assertThatThrownBy(() -> p.parse(bad))
                    .as(bad)
                    .isInstanceOf(RouteException.class)
                    .hasMessage("Invalid percent-encoding in path.");
        }
    }

    @Test
    void routeParserPrefersThePathAndValidatesDecodedSegments() throws RouteException {
        RouteParser parser = new RouteParser("/router");
        DefaultHttpHeaders h = new DefaultHttpHeaders();
        h.set(RouteParser.H_ID, "other");
        h.set(RouteParser.H_POD_IP, "10.0.0.1");
        Route r = parser.parse("/router/ns/id/9000/rest", h);
        assertThat(r.pathRouted()).isTrue();
        assertThat(r.sandboxId()).isEqualTo("id");
        assertThat(r.podIp()).isNull(); // no Pod-IP form on path routes
        assertThat(r.port()).isEqualTo(9000);
        assertThatThrownBy(() -> parser.parse("/router/ns/i%5Fd/80/", h)).hasMessage("Invalid sandbox ID format.");
    }

    @Test
    void headerRoutingDefaultsAndAbsoluteForm() throws RouteException {
        RouteParser parser = new RouteParser("");
        DefaultHttpHeaders h = new DefaultHttpHeaders();
        h.set(RouteParser.H_ID, "sb");
        Route r = parser.parse("http://router.example:8080/p?q=1", h);
        assertThat(r.namespace()).isEqualTo("default");
        assertThat(r.port()).isEqualTo(8888);
        assertThat(r.forwardUri()).isEqualTo("/p?q=1");
        assertThat(RouteParser.originForm("http://h")).isEqualTo("/");
        assertThat(RouteParser.originForm("http://h?x=1")).isEqualTo("/?x=1");
    }
}
