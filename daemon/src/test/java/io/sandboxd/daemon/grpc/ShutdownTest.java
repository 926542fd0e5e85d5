package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.proc.ProcessTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** runtime-contract §1.8 with live processes (pipe, PTY, TERM-ignoring, background children, Execute). */
class ShutdownTest {
    @TempDir
    Path tmp;

    static ProcessConfig cmd(String... argv) {
        return ProcessConfig.newBuilder().addAllCommand(List.of(argv)).build();
    }

    @Test
    void shutdownEndsEveryGroupAndEveryStreamGetsItsExit() throws Exception {
        GrpcDaemon d = GrpcDaemon.start(tmp, c -> TestConfig.withShutdownTimeout(c, Duration.ofSeconds(8)));
        List<StartCollector> streams = new ArrayList<>();
        List<StartRequest> requests = List.of(
                StartRequest.newBuilder()
                        .setConfig(cmd("sh", "-c", "echo $$; sleep 300 & sleep 300"))
                        .build(),
                StartRequest.newBuilder()
                        .setConfig(cmd("sh", "-c", "echo $$; trap '' TERM; sleep 300 & sleep 300"))
                        .build(),
                StartRequest.newBuilder()
                        .setConfig(cmd("sh", "-c", "echo $$; trap 'sleep 1; exit 3' TERM; while :; do sleep 0.2; done"))
                        .build(),
                StartRequest.newBuilder()
                        .setConfig(cmd("sh", "-c", "echo $$; sleep 300"))
                        .setPty(PTY.newBuilder().setCols(80).setRows(24))
                        .build());
        List<Long> sessions = new ArrayList<>();
        for (StartRequest r : requests) {
            StartCollector c = new StartCollector();
            d.async().start(r, c);
            streams.add(c);
        }
        for (StartCollector c : streams) {
            sessions.add(ProcessServiceTest.awaitFirstLine(c));
        }
        // An Execute in flight too; and a background child left behind by an ended stream.
        CompletableFuture<String> exec = CompletableFuture.supplyAsync(() -> {
            try {
                return "exit="
                        + d.blocking()
                                .execute(ExecuteRequest.newBuilder()
                                        .setConfig(cmd("sleep", "300"))
                                        .build())
                                .getExitCode();
            } catch (StatusRuntimeException e) {
                return e.getStatus().getCode().name();
            }
        });
        StartCollector left = new StartCollector();
        d.async()
                .start(
                        StartRequest.newBuilder()
                                .setConfig(cmd("sh", "-c", "echo $$; sleep 300 &"))
                                .build(),
                        left);
        long leftSid = ProcessServiceTest.awaitFirstLine(left);
        assertThat(left.await().isOk()).isTrue();
        assertThat(ProcessTable.read().liveInSession(leftSid)).isNotEmpty();
        // ... and one that detached from the output entirely (its stream ended at once).
        StartCollector detached = new StartCollector();
        d.async()
                .start(
                        StartRequest.newBuilder()
                                .setConfig(cmd("sh", "-c", "echo $$; sleep 300 > /dev/null 2>&1 < /dev/null &"))
                                .build(),
                        detached);
        long detachedSid = ProcessServiceTest.awaitFirstLine(detached);
        assertThat(detached.await().isOk()).isTrue();
        assertThat(ProcessTable.read().liveInSession(detachedSid)).isNotEmpty();
        Thread.sleep(300);

        long t0 = System.nanoTime();
        CompletableFuture<Void> shutdown = CompletableFuture.runAsync(d.daemon::shutdown);
        // While it runs: health says NOT_SERVING and new calls are refused with UNAVAILABLE.
        Thread.sleep(300);
        HealthCheckResponse.ServingStatus health;
        try {
            health = HealthGrpc.newBlockingStub(d.channel)
                    .check(HealthCheckRequest.getDefaultInstance())
                    .getStatus();
        } catch (StatusRuntimeException e) {
            health = HealthCheckResponse.ServingStatus.NOT_SERVING; // listener already closed
        }
        assertThat(health).isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
        Status.Code late = ProcessServiceTest.codeOfStatic(() -> d.blocking()
                .execute(ExecuteRequest.newBuilder().setConfig(cmd("true")).build()));
        assertThat(late).isEqualTo(Status.Code.UNAVAILABLE);

        shutdown.get();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(ms).isLessThan(8_000 + 7_000); // bounded by --shutdown-timeout, plus slack for a loaded CI host
        for (StartCollector c : streams) {
            assertThat(c.await().isOk()).isTrue();
            assertThat(c.exitCode()).isNotZero();
        }
        assertThat(streams.get(2).exitCode()).isEqualTo(3);
        for (long sid : sessions) {
            Poll.until(
                    Duration.ofMillis(5_000),
                    () -> ProcessTable.read().liveInSession(sid).isEmpty());
            assertThat(ProcessTable.read().liveInSession(sid))
                    .as("session %d", sid)
                    .isEmpty();
        }
        Poll.until(
                Duration.ofMillis(5_000),
                () -> ProcessTable.read().liveInSession(leftSid).isEmpty());
        assertThat(ProcessTable.read().liveInSession(leftSid)).isEmpty();
        Poll.until(
                Duration.ofMillis(5_000),
                () -> ProcessTable.read().liveInSession(detachedSid).isEmpty());
        assertThat(ProcessTable.read().liveInSession(detachedSid)).isEmpty();
        // Execute children are terminated too: SIGTERM gives a normal response with 128+15.
        assertThat(exec.get()).isEqualTo("exit=143");
        d.channel.shutdownNow();
    }
}
