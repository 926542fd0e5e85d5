package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.logging.RequestLog;
import io.sandboxd.logging.LogCapture;
import io.sandboxd.logging.LogFormat;
import io.sandboxd.testkit.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthHealthReflectionTest {
    @TempDir
    Path tmp;

    static final ExecuteRequest TRUE = ExecuteRequest.newBuilder()
            .setConfig(ProcessConfig.newBuilder().addCommand("true"))
            .build();

    static Metadata bearer(String token) {
        Metadata m = new Metadata();
        m.put(AuthInterceptor.AUTHORIZATION, "Bearer " + token);
        return m;
    }

    @Test
    void tokenIsRequiredEverywhereButHealth() throws Exception {
        try (GrpcDaemon d = GrpcDaemon.start(tmp, c -> TestConfig.withAuthToken(c, "s3cret-token"))) {
            ProcessServiceGrpc.ProcessServiceBlockingStub anon = d.blocking();
            assertThat(code(() -> anon.execute(TRUE))).isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(code(() -> anon.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bearer("wrong")))
                            .execute(TRUE)))
                    .isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(anon.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bearer("s3cret-token")))
                            .execute(TRUE)
                            .getExitCode())
                    .isZero();
            assertThat(HealthGrpc.newBlockingStub(d.channel)
                            .check(HealthCheckRequest.getDefaultInstance())
                            .getStatus())
                    .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
            StartCollector c = new StartCollector();
            d.async()
                    .start(
                            io.sandboxd.api.process.v1.StartRequest.newBuilder()
                                    .setConfig(TRUE.getConfig())
                                    .build(),
                            c);
            assertThat(c.await().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
            var contexts = io.sandboxd.api.code.v1alpha1.CodeContextServiceGrpc.newBlockingStub(d.channel);
            assertThat(code(() -> contexts.list(io.sandboxd.api.code.v1alpha1.ListRequest.getDefaultInstance())))
                    .isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(code(() -> contexts.withInterceptors(
                                    MetadataUtils.newAttachHeadersInterceptor(bearer("s3cret-token")))
                            .list(io.sandboxd.api.code.v1alpha1.ListRequest.getDefaultInstance())))
                    .isEqualTo(Status.Code.OK);
        }
    }

    @Test
    void healthServesAndReflectionListsTheServices() throws Exception {
        try (GrpcDaemon d = GrpcDaemon.start(tmp)) {
            HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(d.channel);
            assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus())
                    .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
            assertThat(health.check(HealthCheckRequest.newBuilder()
                                    .setService("process.v1.ProcessService")
                                    .build())
                            .getStatus())
                    .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

            CompletableFuture<List<String>> services = new CompletableFuture<>();
            StreamObserver<ServerReflectionRequest> req = ServerReflectionGrpc.newStub(d.channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .serverReflectionInfo(new StreamObserver<>() {
                        @Override
                        public void onNext(ServerReflectionResponse r) {
                            services.complete(r.getListServicesResponse().getServiceList().stream()
                                    .map(s -> s.getName())
                                    .toList());
                        }

                        @Override
                        public void onError(Throwable t) {
                            services.completeExceptionally(t);
                        }

                        @Override
                        public void onCompleted() {}
                    });
            req.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
            assertThat(services.get(30, TimeUnit.SECONDS))
                    .contains(
                            "process.v1.ProcessService",
                            "sandboxd.durable.v1alpha1.DurableProcessService",
                            "sandboxd.code.v1alpha1.CodeContextService",
                            "grpc.health.v1.Health",
                            "grpc.reflection.v1.ServerReflection",
                            "grpc.reflection.v1alpha.ServerReflection");
            req.onCompleted();
        }
    }

    @Test
    void everyRpcGetsOneLogLineAndLatencyMetrics() throws Exception {
        LogCapture buf = new LogCapture(LogFormat.TEXT);
        RequestLog log = new RequestLog(buf.logger(RequestLog.LOGGER));
        try (GrpcDaemon d = GrpcDaemon.start(tmp, c -> c, log)) {
            assertThat(d.blocking().execute(TRUE).getExitCode()).isZero();
            assertThat(code(() -> d.blocking().execute(ExecuteRequest.getDefaultInstance())))
                    .isEqualTo(Status.Code.INVALID_ARGUMENT);
            // The log line and the timer are recorded right after the call closed: wait for both.
            Poll.until(Duration.ofSeconds(10), () -> executeLines(buf).size() >= 2);
            String scrape = d.metrics.scrape();
            assertThat(scrape)
                    .contains(
                            "sandboxd_grpc_server_duration_seconds_count{method=\"process.v1.ProcessService/Execute\",status=\"OK\"} 1");
            assertThat(scrape)
                    .contains(
                            "sandboxd_grpc_server_duration_seconds_count{method=\"process.v1.ProcessService/Execute\",status=\"INVALID_ARGUMENT\"} 1");
            assertThat(scrape).contains("sandboxd_processes_started_total{mode=\"pipe\",rpc=\"execute\"} 1");
            assertThat(scrape).contains("sandboxd_processes_exited_total{exit_code=\"0\"} 1");
            assertThat(scrape).contains("sandboxd_processes_running 0");
        }
        List<String> lines = executeLines(buf);
        assertThat(lines).hasSize(2);
        assertThat(lines).anySatisfy(l -> assertThat(l)
                .contains(" grpc unary ")
                .contains("status=OK")
                .contains("bytes_in=")
                .contains("duration_ms="));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("status=INVALID_ARGUMENT"));
    }

    static List<String> executeLines(LogCapture buf) {
        return buf.text()
                .lines()
                .filter(l -> l.contains("process.v1.ProcessService/Execute"))
                .toList();
    }

    static Status.Code code(Runnable r) {
        try {
            r.run();
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }
}
