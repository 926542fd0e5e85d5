package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.sandboxd.testkit.FreePorts;
import io.sandboxd.testkit.RunningDaemon;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A token-protected daemon, and daemons that are not there. */
class AuthAndUnreachableTest {
    static final String TOKEN = "s3cr3t-t0k3n";
    static RunningDaemon daemon;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start("auth", s -> s.withAuthToken(TOKEN));
    }

    @AfterAll
    static void stop() {
        daemon.close();
    }

    private static SandboxdClient client(String token) {
        return SandboxdClient.builder()
                .grpcTarget(daemon.grpcTarget())
                .restBase(daemon.restBase())
                .token(token)
                .build();
    }

    @Test
    void withTheTokenEverythingWorks() {
        try (SandboxdClient c = client(TOKEN)) {
            assertThat(c.execute("echo", "in").stdoutText()).isEqualTo("in\n");
            c.write("t.txt", new byte[] {1});
            assertThat(c.list("/").entries()).extracting(FileEntry::name).contains("t.txt");
        }
    }

    @Test
    void withoutATokenRestSays401AndGrpcUnauthenticatedButHealthAnswers() {
        try (SandboxdClient c = client(null)) {
            assertThat(c.health().status()).isEqualTo("ok");
            assertThatThrownBy(() -> c.list("/")).isInstanceOfSatisfying(RestCallException.class, e -> {
                assertThat(e.httpStatus()).isEqualTo(401);
                assertThat(e.errorCode()).isEqualTo("UNAUTHENTICATED");
                assertThat(e.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            });
            assertThatThrownBy(() -> c.exists("t.txt"))
                    .isInstanceOfSatisfying(RestCallException.class, e -> assertThat(e.errorCode())
                            .as("HEAD: code from the status")
                            .isEqualTo("UNAUTHENTICATED"));
            assertThatThrownBy(() -> c.execute("true"))
                    .isInstanceOfSatisfying(
                            GrpcCallException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAUTHENTICATED));
            RemoteProcess p = c.start(Command.of("true"));
            assertThatThrownBy(p::pid).isInstanceOfSatisfying(GrpcCallException.class, e -> assertThat(e.code())
                    .isEqualTo(Status.Code.UNAUTHENTICATED));
        }
    }

    @Test
    void aViewWithAnotherTokenSharesTheConnection() {
        try (SandboxdClient good = client(TOKEN)) {
            SandboxdClient wrong = good.withToken("wrong");
            assertThatThrownBy(() -> wrong.execute("true"))
                    .isInstanceOfSatisfying(
                            GrpcCallException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAUTHENTICATED));
            assertThatThrownBy(() -> wrong.delete("x"))
                    .isInstanceOfSatisfying(RestCallException.class, e -> assertThat(e.httpStatus())
                            .isEqualTo(401));
            assertThat(wrong.managedChannel()).isSameAs(good.managedChannel());
            wrong.close();
            assertThat(good.execute("true").exitCode())
                    .as("closing a view closes nothing")
                    .isZero();
            // The token reaches stubs of other services on the same channel.
            assertThat(io.grpc.health.v1.HealthGrpc.newBlockingStub(good.channel())
                            .withDeadlineAfter(10, java.util.concurrent.TimeUnit.SECONDS)
                            .check(HealthCheckRequest.getDefaultInstance())
                            .getStatusValue())
                    .isEqualTo(1);
        }
    }

    @Test
    void anUnreachableDaemonNamesTheAddressTried() {
        int port = FreePorts.pick();
        try (SandboxdClient c = SandboxdClient.connect("127.0.0.1:" + port, "http://127.0.0.1:" + port)) {
            assertThatThrownBy(() -> c.execute("true")).isInstanceOfSatisfying(DaemonUnreachableException.class, e -> {
                assertThat(e.address()).isEqualTo("127.0.0.1:" + port);
                assertThat(e.getMessage())
                        .isEqualTo("cannot reach sandboxd gRPC at 127.0.0.1:" + port + ": connection refused");
            });
            assertThatThrownBy(() -> c.start(Command.of("true")).pid()).isInstanceOf(DaemonUnreachableException.class);
            assertThatThrownBy(c::health).isInstanceOfSatisfying(DaemonUnreachableException.class, e -> {
                assertThat(e.address()).isEqualTo("http://127.0.0.1:" + port);
                assertThat(e.getMessage())
                        .isEqualTo("cannot reach sandboxd REST at http://127.0.0.1:" + port + ": connection refused");
            });
            assertThatThrownBy(() -> c.write("x", new byte[10])).isInstanceOf(DaemonUnreachableException.class);
        }
    }

    @Test
    void aCallTimeoutEndsAHungCallWithDeadlineExceeded() throws Exception {
        // A listening socket that never answers: connect succeeds, the call hangs.
        try (java.net.ServerSocket silent =
                        new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
                SandboxdClient c = SandboxdClient.builder()
                        .grpcTarget("127.0.0.1:" + silent.getLocalPort())
                        .restBase("http://127.0.0.1:" + silent.getLocalPort())
                        .callTimeout(Duration.ofMillis(700))
                        .build()) {
            long t = System.nanoTime();
            assertThatThrownBy(() -> c.execute("true"))
                    .isInstanceOfSatisfying(GrpcCallException.class, e -> assertThat(e.code())
                            .isEqualTo(Status.Code.DEADLINE_EXCEEDED));
            assertThatThrownBy(c::health).isInstanceOf(SandboxdException.class).hasMessageContaining("/v1/health");
            assertThat(Duration.ofNanos(System.nanoTime() - t)).isLessThan(Duration.ofSeconds(10));
        }
    }
}
