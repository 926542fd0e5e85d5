package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import io.grpc.Channel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.AbstractStub;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With the access token on, every REST route and every gRPC method (health excepted) rejects a
 * missing, wrong or malformed token with 401 / UNAUTHENTICATED and does nothing; the right token
 * works; the token never appears in responses or in the daemon's log.
 */
class AuthIT {
    private static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final String TOKEN = "s3cr3t-" + Long.toHexString(System.nanoTime());
    /** Authorization values that must all be refused; null = header absent. */
    private static final List<String> BAD = java.util.Arrays.asList(
            null,
            "Bearer wrong-token",
            "Bearer " + TOKEN + "x",
            "Bearer " + TOKEN.substring(0, TOKEN.length() - 1),
            "Basic " + TOKEN,
            TOKEN,
            "Bearer",
            "Bearer  " + TOKEN + " extra");

    private static RunningDaemon daemon;
    private static Path root;

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx256m")
                .withAuthToken(TOKEN)
                .withLogName("AuthIT")
                .start();
        root = daemon.rootDir();
        Files.writeString(root.resolve("present.txt"), "present");
    }

    @AfterAll
    static void stop() throws Exception {
        if (daemon != null) {
            daemon.stop(java.time.Duration.ofSeconds(20));
            String log = daemon.stdout() + daemon.stderr();
            daemon.killTree();
            assertThat(log).as("daemon log").doesNotContain(TOKEN);
        }
    }

    private record Route(String method, String path, byte[] body) {}

    private static final List<Route> ROUTES = List.of(
            new Route("GET", "/v1/files/present.txt", null),
            new Route("HEAD", "/v1/files/present.txt", null),
            new Route("GET", "/v1/files/", null),
            new Route("GET", "/v1/files/missing", null),
            new Route("PUT", "/v1/files/created-by-unauthenticated.txt", "pwned".getBytes(StandardCharsets.UTF_8)),
            new Route("PUT", "/v1/files/present.txt", "pwned".getBytes(StandardCharsets.UTF_8)),
            new Route("DELETE", "/v1/files/present.txt", null),
            new Route("DELETE", "/v1/files/?recursive=true", null),
            new Route("GET", "/v1/metadata", null),
            new Route("GET", "/metrics", null),
            new Route("GET", "/v1/no-such-route", null),
            new Route("POST", "/v1/files/present.txt", null));

    @Test
    void everyRestRouteRefusesMissingAndWrongTokens() throws Exception {
        List<String> failures = new ArrayList<>();
        for (Route route : ROUTES) {
            for (String auth : BAD) {
                RawResponse r = Http.exchange(
                        daemon,
                        RawRequest.of(route.method(), route.path())
                                .header("Authorization", auth)
                                .body(route.body()));
                String what = route.method() + " " + route.path() + " with Authorization "
                        + (auth == null ? "(none)" : "'" + auth + "'");
                if (r.status() != 401) {
                    failures.add(what + " → " + r.status());
                    continue;
                }
                if (!route.method().equals("HEAD")) {
                    if (!Objects.requireNonNullElse(r.header("Content-Type"), "")
                                    .startsWith("application/json")
                            || !r.text().contains("UNAUTHENTICATED")) {
                        failures.add(what + " → 401 without JSON UNAUTHENTICATED body: " + r.text());
                    }
                    if (r.text().contains(TOKEN)) {
                        failures.add(what + " → response echoes the token");
                    }
                }
            }
        }
        assertThat(failures).isEmpty();
        assertThat(Files.readString(root.resolve("present.txt")))
                .as("present.txt after refused PUT/DELETE")
                .isEqualTo("present");
        assertThat(root.resolve("created-by-unauthenticated.txt")).doesNotExist();
    }

    @Test
    void healthNeedsNoTokenAndTheRightTokenWorks() throws Exception {
        assertThat(Http.exchange(daemon, RawRequest.get("/v1/health")).status()).isEqualTo(200);
        assertThat(Http.exchange(daemon, RawRequest.get("/v1/files/present.txt").bearer(TOKEN))
                        .status())
                .isEqualTo(200);
        assertThat(Http.exchange(daemon, RawRequest.get("/v1/metadata").bearer(TOKEN))
                        .status())
                .isEqualTo(200);
        assertThat(Http.exchange(daemon, RawRequest.get("/metrics").bearer(TOKEN))
                        .status())
                .isEqualTo(200);
        assertThat(Http.exchange(
                                daemon,
                                Http.put("/v1/files/authed.txt", "ok".getBytes(StandardCharsets.UTF_8))
                                        .bearer(TOKEN))
                        .status())
                .isEqualTo(204);
        assertThat(Http.exchange(
                                daemon,
                                RawRequest.delete("/v1/files/authed.txt").bearer(TOKEN))
                        .status())
                .isEqualTo(204);
        try (SandboxdClient authed = SandboxdClient.builder()
                .grpcTarget(daemon.grpcTarget())
                .restBase(daemon.restBase())
                .token(TOKEN)
                .build()) {
            assertThat(authed.execute("echo", "authed").stdoutText()).isEqualTo("authed\n");
            assertThat(HealthGrpc.newBlockingStub(authed.channel())
                            .withDeadlineAfter(30, TimeUnit.SECONDS)
                            .check(HealthCheckRequest.getDefaultInstance())
                            .getStatus()
                            .name())
                    .isEqualTo("SERVING");
        }
    }

    @Test
    void everyGrpcMethodRefusesMissingAndWrongTokens() throws Exception {
        List<String> failures = new ArrayList<>();
        try (SandboxdClient anonymous = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase())) {
            Channel channel = anonymous.channel();
            assertThat(HealthGrpc.newBlockingStub(channel)
                            .withDeadlineAfter(30, TimeUnit.SECONDS)
                            .check(HealthCheckRequest.getDefaultInstance())
                            .getStatus()
                            .name())
                    .as("health without a token")
                    .isEqualTo("SERVING");
            for (String auth : BAD) {
                ProcessServiceGrpc.ProcessServiceBlockingStub stub = withAuth(
                                ProcessServiceGrpc.newBlockingStub(channel), auth)
                        .withDeadlineAfter(30, TimeUnit.SECONDS);
                String marker = "auth-marker-" + failures.size() + "-" + System.nanoTime();
                check(
                        failures,
                        auth,
                        "Execute",
                        () -> stub.execute(ExecuteRequest.newBuilder()
                                .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("touch", marker)))
                                .build()));
                check(failures, auth, "Start", () -> {
                    Iterator<?> it = stub.start(StartRequest.newBuilder()
                            .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("touch", marker + "-start")))
                            .build());
                    while (it.hasNext()) {
                        it.next();
                    }
                });
                check(
                        failures,
                        auth,
                        "WriteStdin",
                        () -> stub.writeStdin(WriteStdinRequest.newBuilder()
                                .setProcessId(1)
                                .setInput(ByteString.copyFromUtf8("x"))
                                .build()));
                check(
                        failures,
                        auth,
                        "SendSignal",
                        () -> stub.sendSignal(SendSignalRequest.newBuilder()
                                .setProcessId(1)
                                .setSignal(Signal.SIGNAL_SIGKILL)
                                .build()));
                check(
                        failures,
                        auth,
                        "ResizeTTY",
                        () -> stub.resizeTTY(ResizeTTYRequest.newBuilder()
                                .setProcessId(1)
                                .setCols(80)
                                .setRows(24)
                                .build()));
                check(failures, auth, "ServerReflectionInfo", () -> reflect(channel, auth));
                if (Files.exists(root.resolve(marker)) || Files.exists(root.resolve(marker + "-start"))) {
                    failures.add("a refused call with Authorization " + auth + " still ran its command");
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    private static void check(List<String> failures, String auth, String method, Runnable call) {
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call::run);
        String what = method + " with authorization " + (auth == null ? "(none)" : "'" + auth + "'");
        if (e == null) {
            failures.add(what + " succeeded");
        } else if (e.getStatus().getCode() != Status.Code.UNAUTHENTICATED) {
            failures.add(what + " → " + e.getStatus());
        } else if (String.valueOf(e.getStatus().getDescription()).contains(TOKEN)) {
            failures.add(what + " → message echoes the token");
        }
    }

    private static void reflect(Channel channel, String auth) {
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> req = withAuth(ServerReflectionGrpc.newStub(channel), auth)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse value) {}

                    @Override
                    public void onError(Throwable t) {
                        done.complete(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(null);
                    }
                });
        req.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
        req.onCompleted();
        Throwable t = done.join();
        if (t instanceof StatusRuntimeException sre) {
            throw sre;
        }
        if (t != null) {
            throw Status.fromThrowable(t).asRuntimeException();
        }
    }

    private static <S extends AbstractStub<S>> S withAuth(S stub, String auth) {
        if (auth == null) {
            return stub;
        }
        Metadata md = new Metadata();
        md.put(AUTHORIZATION, auth);
        return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
    }
}
