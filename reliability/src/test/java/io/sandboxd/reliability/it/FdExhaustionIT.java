package io.sandboxd.reliability.it;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.reliability.client.Grpc;
import io.sandboxd.reliability.client.Rest;
import io.sandboxd.reliability.client.StartStream;
import io.sandboxd.reliability.daemon.DaemonLauncher;
import io.sandboxd.reliability.daemon.RunningDaemon;
import io.sandboxd.reliability.proc.ResourceSnapshot;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * File-descriptor exhaustion under {@code ulimit -n 256}: once the daemon runs out, calls fail
 * quickly with a clear status or JSON error (never a hang, never a crash), and after the load is
 * released everything works again and the fds come back.
 */
class FdExhaustionIT {
    private static final int LIMIT = 256;
    private static final Set<Status.Code> CLEAR_GRPC = Set.of(Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.UNAVAILABLE, Status.Code.INTERNAL);

    @Test
    void processesExhaustFdsThenClearErrorsThenRecovery() throws Exception {
        try (RunningDaemon daemon = DaemonLauncher.start(TestDaemons.spec("FdExhaustionIT-processes").withOpenFileLimit(LIMIT));
             Grpc grpc = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty())) {
            Rest rest = new Rest(daemon.restBase(), Optional.empty());
            assertWorks(daemon, grpc, rest, "warm-up");
            Poll.sleep(2500);
            ResourceSnapshot base = daemon.observer().quick();
            System.out.println("fd exhaustion (processes) baseline: " + base.describe());

            // A keep-alive REST connection opened before exhaustion, to see what a request on it gets.
            RawHttp keepAlive = new RawHttp(daemon.restPort(), Duration.ofSeconds(30));
            keepAlive.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(keepAlive.read().status()).isEqualTo(200);

            List<StartStream> held = new ArrayList<>();
            StatusRuntimeException refused = null;
            for (int i = 0; i < 2 * LIMIT && refused == null; i++) {
                StartStream s = StartStream.open(grpc, StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                        .addAllCommand(List.of("sleep", "600"))).build(), Duration.ofMinutes(5));
                try {
                    s.awaitInit(Duration.ofSeconds(30));
                    held.add(s);
                } catch (StatusRuntimeException e) {
                    refused = e;
                }
            }
            System.out.println("fd exhaustion: " + held.size() + " processes started, then: "
                    + (refused == null ? "no refusal" : refused.getStatus()) + "; daemon " + daemon.observer().quick().describe());
            assertThat(refused).as("Start was never refused after %d processes under ulimit -n %d", held.size(), LIMIT).isNotNull();
            assertThat(refused.getStatus().getCode()).as("status when out of fds: %s", refused.getStatus())
                    .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(refused.getStatus().getDescription()).as("error message").contains("file descriptors");
            assertThat(refused.getStatus().getDescription()).as("error message").isNotBlank();

            // While exhausted: Execute fails fast and clearly; a PUT on the open connection gets an error, not a hang.
            try {
                ExecuteResponse r = grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).execute(ExecuteRequest.newBuilder()
                        .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("echo", "x"))).build());
                System.out.println("fd exhaustion: Execute while exhausted succeeded (exit " + r.getExitCode() + ")");
            } catch (StatusRuntimeException e) {
                System.out.println("fd exhaustion: Execute while exhausted: " + e.getStatus());
                assertThat(e.getStatus().getCode()).as("Execute while out of fds: %s", e.getStatus()).isIn(CLEAR_GRPC);
            }
            keepAlive.send("PUT /v1/files/exhausted.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
            try {
                RawHttp.Response put = keepAlive.read();
                System.out.println("fd exhaustion: PUT while exhausted: " + put.status() + " " + put.text());
                assertThat(put.status()).as("PUT while out of fds: %s", put.text()).isIn(204, 500, 503, 507);
                if (put.status() != 204) {
                    assertThat(put.header("content-type")).startsWith("application/json");
                    assertThat(put.text()).contains("\"code\"").contains("\"message\"");
                }
            } catch (RawHttp.ClosedWithoutResponse e) {
                System.out.println("fd exhaustion: PUT while exhausted: connection closed without a response");
            }
            keepAlive.close();
            assertThat(daemon.observer().alive()).as("daemon alive while out of fds").isTrue();

            for (StartStream s : held) {
                s.cancel();
            }
            assertRecovers(daemon, grpc, rest, base);
        }
    }

    @Test
    void connectionsExhaustFdsThenRecovery() throws Exception {
        try (RunningDaemon daemon = DaemonLauncher.start(TestDaemons.spec("FdExhaustionIT-connections").withOpenFileLimit(LIMIT));
             Grpc grpc = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty())) {
            Rest rest = new Rest(daemon.restBase(), Optional.empty());
            assertWorks(daemon, grpc, rest, "warm-up");
            Poll.sleep(2500);
            ResourceSnapshot base = daemon.observer().quick();

            List<Socket> idle = new ArrayList<>();
            try {
                for (int i = 0; i < 2 * LIMIT; i++) {
                    Socket s = new Socket();
                    try {
                        s.connect(new InetSocketAddress("127.0.0.1", i % 2 == 0 ? daemon.restPort() : daemon.grpcPort()), 5000);
                    } catch (java.io.IOException e) {
                        s.close();
                        break; // the accept backlog is full: the daemon is not accepting any more
                    }
                    idle.add(s);
                }
                Poll.sleep(2000);
                System.out.println("fd exhaustion: " + idle.size() + " idle connections; daemon " + daemon.observer().quick().describe());
                assertThat(daemon.observer().fds()).as("daemon fds with %d idle connections", idle.size())
                        .isGreaterThanOrEqualTo(LIMIT - 16);
                // An existing gRPC connection must still get a clear answer (not a hang) while accept() fails.
                try {
                    ExecuteResponse r = grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).execute(ExecuteRequest.newBuilder()
                            .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("echo", "x"))).build());
                    System.out.println("fd exhaustion: Execute with fds full of connections: exit " + r.getExitCode());
                } catch (StatusRuntimeException e) {
                    System.out.println("fd exhaustion: Execute with fds full of connections: " + e.getStatus());
                    assertThat(e.getStatus().getCode()).isIn(CLEAR_GRPC);
                }
                assertThat(daemon.observer().alive()).isTrue();
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
            assertRecovers(daemon, grpc, rest, base);
        }
    }

    private static void assertRecovers(RunningDaemon daemon, Grpc grpc, Rest rest, ResourceSnapshot base) {
        Poll.await(Duration.ofSeconds(60), () -> {
            try {
                assertWorks(daemon, grpc, rest, "recovery");
                return true;
            } catch (Exception | AssertionError e) {
                return false;
            }
        }, () -> "daemon did not recover; " + daemon.observer().quick().describe() + "; log tail:\n" + daemon.logTail(1500));
        Poll.await(Duration.ofSeconds(60), () -> {
            ResourceSnapshot now = daemon.observer().quick();
            return now.fds() <= base.fds() + 8 && now.liveChildren() == 0 && now.zombies() == 0;
        }, () -> "after recovery " + daemon.observer().quick().describe() + ", baseline " + base.describe());
        System.out.println("fd exhaustion: recovered: " + daemon.observer().quick().describe());
    }

    private static void assertWorks(RunningDaemon daemon, Grpc grpc, Rest rest, String phase) throws Exception {
        ExecuteResponse r = grpc.blocking().withDeadlineAfter(20, TimeUnit.SECONDS).execute(ExecuteRequest.newBuilder()
                .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("echo", phase))).build());
        assertThat(r.getStdout()).isEqualTo(ByteString.copyFromUtf8(phase + "\n"));
        byte[] content = phase.getBytes(StandardCharsets.UTF_8);
        assertThat(rest.put("fd/" + phase, content).status()).isEqualTo(204);
        assertThat(rest.get("fd/" + phase).body()).isEqualTo(content);
        assertThat(rest.raw("GET", "/v1/health", null).status()).isEqualTo(200);
    }
}
