package io.sandboxd.conformance;

import io.sandboxd.conformance.cli.ConformanceCommand;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class CliTest {
    record Result(int exit, String out, String err) {
    }

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = ConformanceCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void usageErrorsExitWith2AndSayWhy() {
        assertThat(run("--rest", "http://127.0.0.1:1").exit()).isEqualTo(2);
        Result badLevel = run("--grpc", "127.0.0.1:1", "--rest", "http://127.0.0.1:1", "--level", "gold");
        assertThat(badLevel.exit()).isEqualTo(2);
        assertThat(badLevel.err()).contains("--level must be core, recommended or all");
        Result badId = run("--grpc", "127.0.0.1:1", "--rest", "http://127.0.0.1:1", "--only", "FS-NOPE-001");
        assertThat(badId.exit()).isEqualTo(2);
        assertThat(badId.err()).contains("unknown check id \"FS-NOPE-001\"");
        assertThat(run("--grpc", "127.0.0.1", "--rest", "http://127.0.0.1:1").err()).contains("--grpc must be HOST:PORT");
        assertThat(run("--nope").exit()).isEqualTo(2);
    }

    @Test
    void connectionErrorsExitWith2AndNameTheEndpoint() throws Exception {
        int port = freePort();
        Result r = run("--grpc", "127.0.0.1:" + freePort(), "--rest", "http://127.0.0.1:" + port);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("cannot reach the REST API at http://127.0.0.1:" + port);
    }

    @Test
    void listPrintsEveryCheck() {
        Result r = run("--list");
        assertThat(r.exit()).isZero();
        assertThat(r.out().lines().count()).isEqualTo(io.sandboxd.conformance.suite.CheckId.values().length);
        assertThat(r.out()).contains("FS-PUT-004").contains("PROC-START-001");
    }
}
