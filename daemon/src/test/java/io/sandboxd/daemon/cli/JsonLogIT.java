package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 21: with --log-format json every line the daemon writes to stderr, from the first startup
 * line through requests and a library's own log (grpc-java's, through java.util.logging) to the
 * last shutdown line, is one JSON object with time, level, logger and message.
 */
class JsonLogIT {
    @TempDir
    Path tmp;

    @Test
    void everyStderrLineIsOneJsonObjectFromStartToShutdown() throws Exception {
        List<JsonNode> lines;
        try (RunningDaemon d = DaemonSpec.packagedJar()
                .withRootDir(tmp.resolve("ws"))
                .withArgs("--log-format", "json", "--zap-devel") // an upstream flag: its warning too
                .withReadyTimeout(Duration.ofSeconds(60))
                .withLogs(tmp, "daemon")
                .start()) {
            assertThat(rest(d, "/v1/files/")).isEqualTo(200);
            assertThat(rest(d, "/v1/files/missing")).isEqualTo(404);
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", d.grpcPort())
                    .usePlaintext()
                    .build();
            try {
                var stub = ProcessServiceGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS);
                assertThat(stub.execute(ExecuteRequest.newBuilder()
                                        .setConfig(ProcessConfig.newBuilder().addCommand("/bin/true"))
                                        .build())
                                .getExitCode())
                        .isZero();
                try {
                    stub.execute(ExecuteRequest.getDefaultInstance()); // no command: INVALID_ARGUMENT
                } catch (StatusRuntimeException expected) {
                    // logged as a failed call
                }
            } finally {
                ch.shutdownNow();
            }
            // HTTP/1 bytes on the gRPC port: grpc-java logs the failed transport through java.util.logging
            try (Socket s = new Socket("127.0.0.1", d.grpcPort())) {
                OutputStream out = s.getOutputStream();
                out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                s.getInputStream().readAllBytes();
            }
            Poll.until(Duration.ofSeconds(20), () -> d.stderr().contains("io.grpc"));
            d.signal("TERM");
            assertThat(d.awaitExit(Duration.ofSeconds(30))).hasValue(0);
            lines = parseEveryLine(d.stderr());
        }
        assertThat(lines).first().satisfies(n -> assertThat(str(n, "message")).startsWith("sandboxd: "));
        assertThat(lines).last().satisfies(n -> assertThat(str(n, "message")).isEqualTo("sandboxd: stopped"));
        assertThat(lines).anySatisfy(n -> {
            assertThat(str(n, "message")).startsWith("sandboxd: listening ");
            assertThat(n.path("rest_port").isInt()).isTrue();
            assertThat(n.path("grpc_port").isInt()).isTrue();
        });
        assertThat(lines).anySatisfy(n -> assertThat(str(n, "message")).contains("--zap-devel"));
        assertThat(lines).anySatisfy(n -> {
            assertThat(str(n, "logger")).isEqualTo("sandboxd.request");
            assertThat(str(n, "target")).isEqualTo("/v1/files/missing");
            assertThat(str(n, "status")).isEqualTo("404");
            assertThat(n.path("duration_ms").isNumber()).isTrue();
            assertThat(n.path("bytes_out").isIntegralNumber()).isTrue();
        });
        assertThat(lines).anySatisfy(n -> {
            assertThat(str(n, "transport")).isEqualTo("grpc");
            assertThat(str(n, "status")).isEqualTo("INVALID_ARGUMENT");
        });
        assertThat(lines).anySatisfy(n -> assertThat(str(n, "logger")).startsWith("io.grpc."));
    }

    /** Upstream's --zap-log-level is honoured: at warn the startup, request and shutdown lines (INFO) go. */
    @Test
    void zapLogLevelWarnLeavesOnlyWarningsAndErrors() throws Exception {
        List<JsonNode> lines;
        try (RunningDaemon d = DaemonSpec.packagedJar()
                .withRootDir(tmp.resolve("ws"))
                .withArgs("--log-format", "json", "--zap-log-level=warn", "--zap-devel")
                .withReadyTimeout(Duration.ofSeconds(60))
                .withLogs(tmp, "daemon")
                .start()) {
            assertThat(rest(d, "/v1/files/missing")).isEqualTo(404);
            d.signal("TERM");
            assertThat(d.awaitExit(Duration.ofSeconds(30))).hasValue(0);
            lines = parseEveryLine(d.stderr());
        }
        // the --zap-devel no-effect warning is still there; nothing below WARN is
        assertThat(lines).anySatisfy(n -> assertThat(str(n, "message")).contains("--zap-devel"));
        assertThat(lines).allSatisfy(n -> assertThat(str(n, "level")).isIn("WARN", "ERROR"));
    }

    /** Fails on the first line that is not a JSON object with the four fields every line has. */
    static List<JsonNode> parseEveryLine(String stderr) {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> parsed = new ArrayList<>();
        List<String> raw = stderr.lines().toList();
        assertThat(raw).as("stderr lines").isNotEmpty();
        for (String line : raw) {
            JsonNode n;
            try {
                n = json.readTree(line);
            } catch (RuntimeException e) {
                throw new AssertionError("not a JSON line: " + line, e);
            }
            assertThat(n.isObject()).as(line).isTrue();
            for (String field : List.of("time", "level", "logger", "message")) {
                assertThat(n.hasNonNull(field)).as(field + " in " + line).isTrue();
                assertThat(n.get(field).isString()).as(field + " in " + line).isTrue();
            }
            parsed.add(n);
        }
        return parsed;
    }

    private static String str(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asString() : "";
    }

    private static int rest(RunningDaemon d, String path) throws Exception {
        return RawHttp.exchange("127.0.0.1", d.restPort(), RawRequest.get(path).closing(), Duration.ofSeconds(10))
                .status();
    }
}
