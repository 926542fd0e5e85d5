package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.sandboxd.client.Command;
import io.sandboxd.client.DaemonUnreachableException;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.SandboxdException;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ResourceSnapshot;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * File-descriptor exhaustion under {@code ulimit -n 256}: once the daemon runs out, calls fail
 * quickly with a clear status or JSON error (never a hang, never a crash), and after the load is
 * released everything works again and the fds come back.
 */
class FdExhaustionIT {
    private static final int LIMIT = 256;
    private static final Set<Status.Code> CLEAR_GRPC =
            Set.of(Status.Code.RESOURCE_EXHAUSTED, Status.Code.UNAVAILABLE, Status.Code.INTERNAL);

    @Test
    void processesExhaustFdsThenClearErrorsThenRecovery() throws Exception {
        try (RunningDaemon daemon = spec("FdExhaustionIT-processes").start();
                SandboxdClient client = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase())) {
            assertWorks(daemon, client, "warm-up");
            Poll.sleep(2500);
            ResourceSnapshot base = daemon.observer().snapshot();
            System.out.println("fd exhaustion (processes) baseline: " + base.describe());

            // A keep-alive REST connection opened before exhaustion, to see what a request on it gets.
            RawHttp keepAlive = RawHttp.connect("127.0.0.1", daemon.restPort(), Duration.ofSeconds(30));
            keepAlive.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(keepAlive.read().status()).isEqualTo(200);

            List<RemoteProcess> held = new ArrayList<>();
            GrpcCallException refused = null;
            SandboxdClient streams = client.withStreamDeadline(Duration.ofMinutes(5));
            for (int i = 0; i < 2 * LIMIT && refused == null; i++) {
                RemoteProcess s = streams.start(Command.of("sleep", "600"), StartRecorder.countingOnly());
                try {
                    if (s.awaitInit(Duration.ofSeconds(30)).isEmpty()) {
                        throw new AssertionError("no init event within 30 s for process #" + (i + 1));
                    }
                    held.add(s);
                } catch (GrpcCallException e) {
                    refused = e;
                }
            }
            System.out.println("fd exhaustion: " + held.size() + " processes started, then: "
                    + (refused == null ? "no refusal" : refused.status()) + "; daemon "
                    + daemon.observer().snapshot().describe());
            assertThat(refused)
                    .as("Start was never refused after %d processes under ulimit -n %d", held.size(), LIMIT)
                    .isNotNull();
            assertThat(refused.code())
                    .as("status when out of fds: %s", refused.status())
                    .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(refused.description()).as("error message").contains("file descriptors");
            assertThat(refused.description()).as("error message").isNotBlank();

            // While exhausted: Execute fails fast and clearly; a PUT on the open connection gets an error, not a hang.
            try {
                ExecResult r = client.execute("echo", "x");
                System.out.println("fd exhaustion: Execute while exhausted succeeded (exit " + r.exitCode() + ")");
            } catch (GrpcCallException | DaemonUnreachableException e) {
                System.out.println("fd exhaustion: Execute while exhausted: " + e.getMessage());
                assertThat(code(e))
                        .as("Execute while out of fds: %s", e.getMessage())
                        .isIn(CLEAR_GRPC);
            }
            keepAlive.send("PUT /v1/files/exhausted.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
            try {
                RawResponse put = keepAlive.read();
                System.out.println("fd exhaustion: PUT while exhausted: " + put.status() + " " + put.text());
                assertThat(put.status())
                        .as("PUT while out of fds: %s", put.text())
                        .isIn(204, 500, 503, 507);
                if (put.status() != 204) {
                    assertThat(put.header("content-type")).startsWith("application/json");
                    assertThat(put.text()).contains("\"code\"").contains("\"message\"");
                }
            } catch (RawHttp.ClosedWithoutResponse e) {
                System.out.println("fd exhaustion: PUT while exhausted: connection closed without a response");
            }
            keepAlive.close();
            assertThat(daemon.observer().alive())
                    .as("daemon alive while out of fds")
                    .isTrue();

            for (RemoteProcess s : held) {
                s.cancel();
            }
            assertRecovers(daemon, client, base);
        }
    }

    @Test
    void connectionsExhaustFdsThenRecovery() throws Exception {
        try (RunningDaemon daemon = spec("FdExhaustionIT-connections").start();
                SandboxdClient client = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase())) {
            assertWorks(daemon, client, "warm-up");
            Poll.sleep(2500);
            ResourceSnapshot base = daemon.observer().snapshot();

            List<Socket> idle = new ArrayList<>();
            try {
                for (int i = 0; i < 2 * LIMIT; i++) {
                    Socket s = new Socket();
                    try {
                        s.connect(
                                new InetSocketAddress("127.0.0.1", i % 2 == 0 ? daemon.restPort() : daemon.grpcPort()),
                                5000);
                    } catch (java.io.IOException e) {
                        s.close();
                        break; // the accept backlog is full: the daemon is not accepting any more
                    }
                    idle.add(s);
                }
                Poll.sleep(2000);
                System.out.println("fd exhaustion: " + idle.size() + " idle connections; daemon "
                        + daemon.observer().snapshot().describe());
                assertThat(daemon.observer().fds())
                        .as("daemon fds with %d idle connections", idle.size())
                        .isGreaterThanOrEqualTo(LIMIT - 16);
                // An existing gRPC connection must still get a clear answer (not a hang) while accept() fails.
                try {
                    ExecResult r = client.execute("echo", "x");
                    System.out.println("fd exhaustion: Execute with fds full of connections: exit " + r.exitCode());
                } catch (GrpcCallException | DaemonUnreachableException e) {
                    System.out.println("fd exhaustion: Execute with fds full of connections: " + e.getMessage());
                    assertThat(code(e)).isIn(CLEAR_GRPC);
                }
                assertThat(daemon.observer().alive()).isTrue();
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
            assertRecovers(daemon, client, base);
        }
    }

    private static DaemonSpec spec(String name) {
        return DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx256m")
                .withOpenFileLimit(LIMIT)
                .withLogName(name);
    }

    /** The call's gRPC status; the library reports an UNAVAILABLE without any connection as DaemonUnreachableException. */
    private static Status.Code code(SandboxdException e) {
        return e instanceof GrpcCallException g ? g.code() : Status.Code.UNAVAILABLE;
    }

    private static void assertRecovers(RunningDaemon daemon, SandboxdClient client, ResourceSnapshot base) {
        Poll.await(
                Duration.ofSeconds(60),
                () -> {
                    try {
                        assertWorks(daemon, client, "recovery");
                        return true;
                    } catch (Exception | AssertionError e) {
                        return false;
                    }
                },
                () -> "daemon did not recover; " + daemon.observer().snapshot().describe() + "; log tail:\n"
                        + daemon.logTail(1500));
        Poll.await(
                Duration.ofSeconds(60),
                () -> {
                    ResourceSnapshot now = daemon.observer().snapshot();
                    return now.fds() <= base.fds() + 8 && now.liveDescendants() == 0 && now.zombies() == 0;
                },
                () -> "after recovery " + daemon.observer().snapshot().describe() + ", baseline " + base.describe());
        System.out.println(
                "fd exhaustion: recovered: " + daemon.observer().snapshot().describe());
    }

    private static void assertWorks(RunningDaemon daemon, SandboxdClient client, String phase) throws Exception {
        ExecResult r = client.withCallTimeout(Duration.ofSeconds(20)).execute("echo", phase);
        assertThat(r.stdout()).isEqualTo(ByteString.copyFromUtf8(phase + "\n"));
        byte[] content = phase.getBytes(StandardCharsets.UTF_8);
        assertThat(Http.exchange(daemon, Http.put("/v1/files/fd/" + phase, content))
                        .status())
                .isEqualTo(204);
        assertThat(client.readBytes("fd/" + phase)).isEqualTo(content);
        assertThat(Http.exchange(daemon, RawRequest.get("/v1/health")).status()).isEqualTo(200);
    }
}
