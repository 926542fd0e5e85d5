package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.daemon.config.TestConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bounds: Execute head+tail, --max-processes, --stream-chunk-size, flow control, 500 streams. */
class LimitsAndFlowControlTest {
    @TempDir
    Path tmp;

    static ProcessConfig cmd(String... argv) {
        return ProcessConfig.newBuilder().addAllCommand(List.of(argv)).build();
    }

    @Test
    void executeKeepsHeadAndTailAndReportsTheDropInTrailers() throws Exception {
        try (GrpcDaemon d =
                GrpcDaemon.start(tmp, c -> TestConfig.withLimits(c, c.streamChunkSize(), 1000, c.maxProcesses()))) {
            AtomicReference<Metadata> trailers = new AtomicReference<>();
            ProcessServiceGrpc.ProcessServiceBlockingStub stub = d.blocking()
                    .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(new AtomicReference<>(), trailers));
            ExecuteResponse r = stub.execute(ExecuteRequest.newBuilder()
                    .setConfig(cmd(
                            "sh",
                            "-c",
                            "printf HEAD; head -c 100000 /dev/zero | tr '\\0' m; printf TAIL; printf e1 1>&2"))
                    .build());
            byte[] out = r.getStdout().toByteArray();
            assertThat(out).hasSize(1000);
            assertThat(new String(out, 0, 4)).isEqualTo("HEAD");
            assertThat(new String(out, 996, 4)).isEqualTo("TAIL");
            assertThat(new String(out, 4, 496)).matches("m{496}");
            assertThat(r.getStderr().toStringUtf8()).isEqualTo("e1");
            assertThat(trailers.get().get(ProcessServiceImpl.STDOUT_TRUNCATED))
                    .isEqualTo(Long.toString(100_008 - 1000));
            assertThat(trailers.get().get(ProcessServiceImpl.STDERR_TRUNCATED)).isNull();
        }
    }

    @Test
    void maxProcessesIsEnforcedAndReleased() throws Exception {
        try (GrpcDaemon d =
                GrpcDaemon.start(tmp, c -> TestConfig.withLimits(c, c.streamChunkSize(), c.executeOutputLimit(), 2))) {
            StartCollector a = new StartCollector();
            StartCollector b = new StartCollector();
            d.async()
                    .start(
                            StartRequest.newBuilder()
                                    .setConfig(cmd("sleep", "30"))
                                    .build(),
                            a);
            d.async()
                    .start(
                            StartRequest.newBuilder()
                                    .setConfig(cmd("sleep", "30"))
                                    .build(),
                            b);
            int ida = a.pid();
            int idb = b.pid();
            try {
                d.blocking()
                        .execute(ExecuteRequest.newBuilder()
                                .setConfig(cmd("true"))
                                .build());
                throw new AssertionError("third process accepted");
            } catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                assertThat(e.getStatus().getDescription()).contains("2");
            }
            d.blocking()
                    .sendSignal(SendSignalRequest.newBuilder()
                            .setProcessId(ida)
                            .setSignal(Signal.SIGNAL_SIGKILL)
                            .build());
            d.blocking()
                    .sendSignal(SendSignalRequest.newBuilder()
                            .setProcessId(idb)
                            .setSignal(Signal.SIGNAL_SIGKILL)
                            .build());
            a.await();
            b.await();
            assertThat(d.blocking()
                            .execute(ExecuteRequest.newBuilder()
                                    .setConfig(cmd("true"))
                                    .build())
                            .getExitCode())
                    .isZero();
        }
    }

    @Test
    void chunksAreBoundedByTheStreamChunkSize() throws Exception {
        try (GrpcDaemon d =
                GrpcDaemon.start(tmp, c -> TestConfig.withLimits(c, 1024, c.executeOutputLimit(), c.maxProcesses()))) {
            StartCollector c = new StartCollector();
            d.async()
                    .start(
                            StartRequest.newBuilder()
                                    .setConfig(cmd("head", "-c", "300000", "/dev/zero"))
                                    .build(),
                            c);
            assertThat(c.await().isOk()).isTrue();
            long total = 0;
            for (StartResponse e : c.events) {
                if (e.getEventCase() == StartResponse.EventCase.STDOUT) {
                    assertThat(e.getStdout().size()).isBetween(1, 1024);
                    total += e.getStdout().size();
                }
            }
            assertThat(total).isEqualTo(300_000);
        }
    }

    /**
     * The I/O loop lends one read buffer to every chunk of every stream: each chunk must reach the
     * client as it was read, not as the next read overwrote it. Distinct content on both pipes at
     * once, through full 256 KiB chunks and a grown pipe, and an Execute next to it.
     */
    @Test
    void outputArrivesByteExactThroughTheReusedReadBuffer() throws Exception {
        try (GrpcDaemon d = GrpcDaemon.start(
                tmp, c -> TestConfig.withLimits(c, 256 * 1024, c.executeOutputLimit(), c.maxProcesses()))) {
            StartCollector c = new StartCollector();
            d.async()
                    .start(
                            StartRequest.newBuilder()
                                    .setConfig(cmd("sh", "-c", "seq 1 600000 >&2 & seq 1 1500000; wait"))
                                    .build(),
                            c);
            ExecuteResponse r = d.blocking()
                    .execute(ExecuteRequest.newBuilder()
                            .setConfig(cmd("sh", "-c", "seq 1 20000; seq 5 9 >&2"))
                            .build());
            assertThat(c.await().isOk()).isTrue();
            assertThat(c.stdout()).isEqualTo(seq(1_500_000));
            assertThat(c.stderr()).isEqualTo(seq(600_000));
            assertThat(c.events.stream().filter(e -> e.getStdout().size() > 64 * 1024))
                    .isNotEmpty();
            assertThat(r.getStdout().toStringUtf8()).isEqualTo(seq(20_000));
            assertThat(r.getStderr().toStringUtf8()).isEqualTo("5\n6\n7\n8\n9\n");
        }
    }

    private static String seq(int n) {
        StringBuilder sb = new StringBuilder(n * 8);
        for (int i = 1; i <= n; i++) {
            sb.append(i).append('\n');
        }
        return sb.toString();
    }

    /** A client that does not read stalls its process (the pipe fills) instead of growing the heap. */
    @Test
    void aSlowClientBackpressuresItsProcess() throws Exception {
        try (GrpcDaemon d = GrpcDaemon.start(tmp)) {
            long size = 64L * 1024 * 1024;
            AtomicLong received = new AtomicLong();
            AtomicReference<ClientCallStreamObserver<StartRequest>> call = new AtomicReference<>();
            CompletableFuture<Integer> exit = new CompletableFuture<>();
            d.async()
                    .start(
                            StartRequest.newBuilder()
                                    .setConfig(cmd("head", "-c", Long.toString(size), "/dev/zero"))
                                    .build(),
                            new ClientResponseObserver<StartRequest, StartResponse>() {
                                @Override
                                public void beforeStart(ClientCallStreamObserver<StartRequest> requestStream) {
                                    requestStream.disableAutoRequestWithInitial(1);
                                    call.set(requestStream);
                                }

                                @Override
                                public void onNext(StartResponse value) {
                                    received.addAndGet(value.getStdout().size());
                                    if (value.hasExit()) {
                                        exit.complete(value.getExit().getExitCode());
                                    }
                                }

                                @Override
                                public void onError(Throwable t) {
                                    exit.completeExceptionally(t);
                                }

                                @Override
                                public void onCompleted() {}
                            });
            Thread.sleep(1500);
            // Only the init was requested: the producer must be stalled far before its 64 MiB.
            assertThat(exit).isNotDone();
            assertThat(d.metrics.scrape()).contains("sandboxd_processes_running 1.0");
            long before = received.get();
            assertThat(before).isLessThan(size);
            call.get().request(Integer.MAX_VALUE);
            assertThat(exit.get(60, TimeUnit.SECONDS)).isZero();
            assertThat(received.get()).isEqualTo(size);
        }
    }

    @Test
    void fiveHundredConcurrentStartStreamsAllCompleteWithTheirOutput() throws Exception {
        try (GrpcDaemon d = GrpcDaemon.start(tmp)) {
            int n = 500;
            List<StartCollector> all = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                StartCollector c = new StartCollector();
                d.async()
                        .withDeadlineAfter(120, TimeUnit.SECONDS)
                        .start(
                                StartRequest.newBuilder()
                                        .setConfig(cmd(
                                                "sh",
                                                "-c",
                                                "echo out-$0; echo err-$0 1>&2; exit $(($0 % 7))",
                                                Integer.toString(i)))
                                        .build(),
                                c);
                all.add(c);
            }
            AtomicInteger ok = new AtomicInteger();
            for (int i = 0; i < n; i++) {
                StartCollector c = all.get(i);
                assertThat(c.await().isOk()).as("stream %d", i).isTrue();
                assertThat(c.stdout()).isEqualTo("out-" + i + "\n");
                assertThat(c.stderr()).isEqualTo("err-" + i + "\n");
                assertThat(c.exitCode()).isEqualTo(i % 7);
                assertThat(c.events.get(0).hasInit()).isTrue();
                ok.incrementAndGet();
            }
            assertThat(ok.get()).isEqualTo(n);
        }
    }
}
