package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.api.process.v1.StartRequest;
import java.net.http.HttpHeaders;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Paths, commands, write options and errors: what goes on the wire and what users read. */
class ValuesTest {
    @Test
    void pathsAreEncodedLikeTheSdksAndReRooted() {
        assertThat(RestPaths.files("a/b")).isEqualTo("/v1/files/a%2Fb");
        assertThat(RestPaths.files("///a")).isEqualTo("/v1/files/a");
        assertThat(RestPaths.files("")).isEqualTo("/v1/files/");
        assertThat(RestPaths.files("/")).isEqualTo("/v1/files/");
        assertThat(RestPaths.files("ü ?#&=%.-_~")).isEqualTo("/v1/files/%C3%BC%20%3F%23%26%3D%25.-_~");
        assertThat(RestPaths.display("a/b")).isEqualTo("/a/b");
        assertThat(RestPaths.display("//a")).isEqualTo("/a");
    }

    @Test
    void commandsBuildTheRequestsAndStayImmutable() {
        Command base = Command.of("ls", "-l");
        Command full = base.env("A", "1").env(Map.of("B", "2")).cwd("work").tty(100, 30);
        assertThat(base.env()).isEmpty();
        assertThat(base.pty()).isEmpty();
        StartRequest r = full.toStartRequest();
        assertThat(r.getConfig().getCommandList()).containsExactly("ls", "-l");
        assertThat(r.getConfig().getEnvVarsMap()).containsExactlyInAnyOrderEntriesOf(Map.of("A", "1", "B", "2"));
        assertThat(r.getConfig().getCwd()).isEqualTo("work");
        assertThat(r.getPty().getCols()).isEqualTo(100);
        assertThat(r.getPty().getRows()).isEqualTo(30);
        assertThat(base.toStartRequest().hasPty()).isFalse();
        assertThat(base.toExecuteRequest().getConfig().hasCwd()).isFalse();
        assertThat(Command.shell("echo hi").argv()).isEqualTo(List.of("sh", "-c", "echo hi"));
    }

    @Test
    void aFlowControlWindowBelowHttp2sInitialWindowIsRefusedNamingTheLimit() {
        assertThatThrownBy(() -> SandboxdClient.builder().flowControlWindow(65_534))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 65535 bytes")
                .hasMessageContaining("65534");
        SandboxdClient.builder().flowControlWindow(65_535).flowControlWindow(1 << 20);
    }

    @Test
    void writeOptionsBecomeQueryAndHeaders() {
        assertThat(WriteOptions.defaults().query()).isEmpty();
        assertThat(WriteOptions.defaults().mode(0755).query()).isEqualTo("?mode=0755");
        assertThat(WriteOptions.defaults().mode(0).query()).isEqualTo("?mode=0000");
        assertThatThrownBy(() -> WriteOptions.defaults().mode(01000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WriteOptions.defaults().sha256("abc")).isInstanceOf(IllegalArgumentException.class);
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://h/"));
        WriteOptions.defaults()
                .createOnly()
                .ifMatch("\"e1\"")
                .sha256("A".repeat(64))
                .apply(b);
        HttpHeaders h = b.GET().build().headers();
        assertThat(h.firstValue("If-None-Match")).hasValue("*");
        assertThat(h.firstValue("If-Match")).hasValue("\"e1\"");
        assertThat(h.firstValue("X-Content-SHA256")).hasValue("a".repeat(64));
    }

    @Test
    void restErrorsKeepTheBodysCodeOrDeriveItFromTheStatus() {
        RestCallException e = new RestCallException("GET", "/x", 404, "NOT_FOUND", "path does not exist", null);
        assertThat(e.getMessage()).isEqualTo("GET /x: 404 NOT_FOUND: path does not exist");
        assertThat(e.errorPhrase()).isEqualTo("not found");
        assertThat(RestCallException.codeForStatus(401)).isEqualTo("UNAUTHENTICATED");
        assertThat(RestCallException.codeForStatus(507)).isEqualTo("INSUFFICIENT_STORAGE");
        assertThat(RestCallException.codeForStatus(502)).isEqualTo("INTERNAL");
        assertThat(RestCallException.codeForStatus(418)).isEqualTo("HTTP_418");
        assertThat(Json.error("{\"code\":\"CONFLICT\",\"message\":\"not empty\"}".getBytes()))
                .containsExactly("CONFLICT", "not empty");
        assertThat(Json.error("<html>bad gateway</html>".getBytes())).containsExactly(null, "<html>bad gateway</html>");
        assertThat(Json.error(new byte[0])).containsExactly(null, null);
    }

    @Test
    void unreachableReasonsAreNamed() {
        assertThat(DaemonUnreachableException.reason(new java.net.ConnectException("Connection refused")))
                .isEqualTo("connection refused");
        assertThat(DaemonUnreachableException.reason(new java.net.UnknownHostException("nope")))
                .isEqualTo("unknown host");
        assertThat(DaemonUnreachableException.reason(new java.net.NoRouteToHostException("x")))
                .isEqualTo("no route to host");
        assertThat(DaemonUnreachableException.isConnectFailure(new RuntimeException(new java.net.ConnectException())))
                .isTrue();
        assertThat(DaemonUnreachableException.isConnectFailure(new java.io.IOException("reset")))
                .isFalse();
    }
}
