package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.sandboxd.api.durable.v1alpha1.DurableProcessServiceGrpc;
import io.sandboxd.api.durable.v1alpha1.ListRequest;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessRef;
import io.sandboxd.api.durable.v1alpha1.StartRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.daemon.cli.Daemon;
import io.sandboxd.daemon.config.DurableConfig;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.metrics.Metrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ended processes are kept for a bounded count and time, then NOT_FOUND with their journal gone. */
class DurableRetentionTest {
    @TempDir
    Path tmp;

    @Test
    void endedProcessesAreForgottenBeyondTheCountAndAfterTheTime() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root")).toRealPath();
        Path state = Files.createDirectories(tmp.resolve("state"));
        Daemon daemon = new Daemon(
                TestConfig.forRoot(root),
                new DurableConfig(
                        state,
                        1 << 20,
                        1 << 30,
                        Duration.ofMillis(1500),
                        2,
                        Duration.ofMillis(500),
                        Duration.ofSeconds(15)),
                new Metrics(),
                TestConfig.silentLog());
        daemon.start();
        ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", daemon.grpcPort())
                .usePlaintext()
                .build();
        try {
            var stub = DurableProcessServiceGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS);
            int[] ids = new int[3];
            for (int i = 0; i < 3; i++) {
                var it = stub.start(StartRequest.newBuilder()
                        .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("echo", "run " + i)))
                        .build());
                ids[i] = it.next().getStarted().getProcessId();
                while (it.hasNext()) {
                    it.next();
                }
                assertThat(journalDirs(state)).contains(Integer.toString(ids[i]));
            }
            // count: only the last two ended processes are kept
            assertThatThrownBy(() -> stub.get(
                            ProcessRef.newBuilder().setProcessId(ids[0]).build()))
                    .satisfies(e -> assertThat(
                                    ((StatusRuntimeException) e).getStatus().getCode())
                            .isEqualTo(Status.Code.NOT_FOUND));
            assertThat(journalDirs(state)).doesNotContain(Integer.toString(ids[0]));
            assertThat(stub.list(ListRequest.newBuilder().setAll(true).build()).getProcessesList())
                    .extracting(ProcessInfo::getProcessId)
                    .containsExactly(ids[1], ids[2]);
            // time: gone after --ended-retention
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!stub.list(ListRequest.newBuilder().setAll(true).build())
                            .getProcessesList()
                            .isEmpty()
                    && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertThat(stub.list(ListRequest.newBuilder().setAll(true).build()).getProcessesList())
                    .isEmpty();
            assertThatThrownBy(() -> stub.wait(
                            ProcessRef.newBuilder().setProcessId(ids[2]).build()))
                    .satisfies(e -> assertThat(
                                    ((StatusRuntimeException) e).getStatus().getCode())
                            .isEqualTo(Status.Code.NOT_FOUND));
            assertThat(journalDirs(state)).isEmpty();
        } finally {
            ch.shutdownNow();
            daemon.shutdown();
        }
    }

    private static List<String> journalDirs(Path state) throws Exception {
        try (Stream<Path> roots = Files.list(state)) {
            Path root = roots.filter(p -> p.getFileName().toString().startsWith("journal-"))
                    .findFirst()
                    .orElseThrow();
            try (Stream<Path> dirs = Files.list(root)) {
                return dirs.map(p -> p.getFileName().toString()).toList();
            }
        }
    }
}
