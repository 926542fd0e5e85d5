package io.sandboxd.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.sandboxd.conformance.cli.ConformanceCommand;
import io.sandboxd.testkit.FreePorts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CliTest {
    record Result(int exit, String out, String err) {}

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = ConformanceCommand.execute(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void usageErrorsExitWith2AndSayWhy() {
        assertThat(run("--rest", "http://127.0.0.1:1").exit()).isEqualTo(2);
        Result badLevel = run("--grpc", "127.0.0.1:1", "--rest", "http://127.0.0.1:1", "--level", "gold");
        assertThat(badLevel.exit()).isEqualTo(2);
        assertThat(badLevel.err()).contains("--level must be core, recommended, extended or all");
        Result badId = run("--grpc", "127.0.0.1:1", "--rest", "http://127.0.0.1:1", "--only", "FS-NOPE-001");
        assertThat(badId.exit()).isEqualTo(2);
        assertThat(badId.err()).contains("unknown check id \"FS-NOPE-001\"");
        assertThat(run("--grpc", "127.0.0.1", "--rest", "http://127.0.0.1:1").err())
                .contains("--grpc must be HOST:PORT");
        assertThat(run("--nope").exit()).isEqualTo(2);
    }

    @Test
    void connectionErrorsExitWith2AndNameTheEndpoint() {
        int[] ports = FreePorts.pick(2);
        Result r = run("--grpc", "127.0.0.1:" + ports[0], "--rest", "http://127.0.0.1:" + ports[1]);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("cannot reach the REST API at http://127.0.0.1:" + ports[1]);
    }

    @Test
    void anUnreachableGrpcEndpointExitsWith2AndSaysWhy() throws Exception {
        HttpServer rest = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        rest.createContext("/", ex -> {
            byte[] body = "{\"status\":\"ok\",\"uptime_seconds\":1}".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        rest.start();
        try {
            int grpc = FreePorts.pick();
            Result r = run(
                    "--grpc",
                    "127.0.0.1:" + grpc,
                    "--rest",
                    "http://127.0.0.1:" + rest.getAddress().getPort());
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err())
                    .contains("cannot reach the gRPC ProcessService at 127.0.0.1:" + grpc
                            + ": connection refused (is the runtime running");
        } finally {
            rest.stop(0);
        }
    }

    @Test
    void listPrintsEveryCheck() {
        Result r = run("--list");
        assertThat(r.exit()).isZero();
        assertThat(r.out().lines().count()).isEqualTo(io.sandboxd.conformance.suite.CheckId.values().length);
        assertThat(r.out()).contains("FS-PUT-004").contains("PROC-START-001");
    }
}
