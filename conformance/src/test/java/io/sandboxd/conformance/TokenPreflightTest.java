package io.sandboxd.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.sandboxd.conformance.cli.ConformanceCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner takes its token from --token-file or the environment, and a runtime that refuses the
 * first authenticated call (401) stops it with exit 2 and one clear line instead of a wall of failures.
 */
class TokenPreflightTest {
    HttpServer rest;
    int closedGrpcPort;
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void start() throws Exception {
        // /v1/health answers anyone; everything else wants "Bearer s3cret", as the daemon with a token
        rest = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        rest.createContext("/", ex -> {
            boolean ok = ex.getRequestURI().getPath().equals("/v1/health")
                    || "Bearer s3cret".equals(ex.getRequestHeaders().getFirst("Authorization"));
            byte[] body = (ok ? "{}" : "{\"code\":\"UNAUTHENTICATED\",\"message\":\"token required\"}")
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(ok ? 200 : 401, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        rest.start();
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedGrpcPort = s.getLocalPort();
        }
    }

    @AfterEach
    void stop() {
        rest.stop(0);
    }

    int run(Map<String, String> env, String... extra) {
        String[] base = {
            "--grpc",
            "127.0.0.1:" + closedGrpcPort,
            "--rest",
            "http://127.0.0.1:" + rest.getAddress().getPort()
        };
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return ConformanceCommand.execute(
                args,
                env,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    String errText() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void noTokenAndA401StopsWithExit2AndSaysHowToGiveOne() {
        assertThat(run(Map.of())).isEqualTo(2);
        assertThat(errText())
                .isEqualTo(
                        "sandboxd-conformance: the runtime answered 401 Unauthorized to GET /v1/metadata: it"
                                + " requires a token: give --token-file FILE (or SANDBOXD_AUTH_TOKEN_FILE / SANDBOXD_AUTH_TOKEN)\n");
    }

    @Test
    void aWrongTokenIsNamedAsRefused() {
        assertThat(run(Map.of("SANDBOXD_AUTH_TOKEN", "wrong"))).isEqualTo(2);
        assertThat(errText()).contains("401 Unauthorized").contains("the token given was refused");
    }

    /** With the right token REST passes the preflight; the run then stops at the (closed) gRPC port. */
    @Test
    void tokenFromFileOrEnvironmentIsUsed(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "s3cret\n");
        for (Map<String, String> env : java.util.List.of(
                Map.of("SANDBOXD_AUTH_TOKEN", "s3cret"), Map.of("SANDBOXD_AUTH_TOKEN_FILE", file.toString()))) {
            err.reset();
            assertThat(run(env)).isEqualTo(2);
            assertThat(errText())
                    .as(env.toString())
                    .contains("cannot reach the gRPC")
                    .doesNotContain("401");
        }
        err.reset();
        assertThat(run(Map.of(), "--token-file", file.toString())).isEqualTo(2);
        assertThat(errText()).contains("cannot reach the gRPC").doesNotContain("401");
        err.reset();
        assertThat(run(Map.of(), "--token-file", dir.resolve("missing").toString()))
                .isEqualTo(2);
        assertThat(errText()).contains("the token file \"" + dir.resolve("missing") + "\" cannot be read");
    }
}
