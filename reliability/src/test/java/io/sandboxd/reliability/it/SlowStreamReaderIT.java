package io.sandboxd.reliability.it;

import io.grpc.Status;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.reliability.client.Grpc;
import io.sandboxd.reliability.client.StartStream;
import io.sandboxd.reliability.daemon.DaemonLauncher;
import io.sandboxd.reliability.daemon.RunningDaemon;
import io.sandboxd.reliability.proc.ResourceSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that stops reading a Start stream of {@code yes}: flow control reaches the child (it
 * blocks writing), daemon memory stays bounded, other streams and calls on the same connection
 * are unaffected, reading resumes when the client asks again, and cancel kills the child.
 */
class SlowStreamReaderIT {
    private static final long MIB = 1 << 20;

    @Test
    void stalledReaderIsFlowControlledAndIsolated() throws Exception {
        try (RunningDaemon daemon = DaemonLauncher.start(TestDaemons.spec("SlowStreamReaderIT"));
             Grpc grpc = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty())) {
            warmUp(grpc);
            ResourceSnapshot base = daemon.observer().withHeap();

            StartStream stalled = StartStream.open(grpc, StartRequest.newBuilder()
                    .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("yes", "stalled-reader"))).build(),
                    Duration.ofMinutes(5), true);
            stalled.awaitInit(Duration.ofSeconds(30));
            Poll.await(Duration.ofSeconds(20), () -> Procs.oneDescendantNamed(daemon, "yes").isPresent(),
                    () -> "yes not found among the daemon's children");
            long yesPid = Procs.oneDescendantNamed(daemon, "yes").orElseThrow().pid();

            Poll.sleep(3000);
            long w1 = Procs.bytesWritten(yesPid);
            Poll.sleep(5000);
            long w2 = Procs.bytesWritten(yesPid);
            assertThat(w2 - w1).as("bytes yes wrote in 5 s while the client read nothing (flow control must block it)")
                    .isLessThan(MIB);
            assertThat(w2).as("bytes buffered between yes and the stalled client").isLessThan(64 * MIB);

            // other work on the same HTTP/2 connection proceeds
            for (int i = 0; i < 5; i++) {
                ExecuteResponse r = grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).execute(ExecuteRequest.newBuilder()
                        .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("echo", "other" + i))).build());
                assertThat(r.getStdout().toStringUtf8()).isEqualTo("other" + i + "\n");
            }
            List<StartStream> others = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                others.add(StartStream.open(grpc, StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                        .addAllCommand(List.of("seq", "1", "20000"))).build(), Duration.ofSeconds(60)));
            }
            StringBuilder want = new StringBuilder();
            for (int i = 1; i <= 20000; i++) {
                want.append(i).append('\n');
            }
            for (StartStream o : others) {
                assertThat(o.awaitDone(Duration.ofSeconds(60))).isEqualTo(Status.OK);
                assertThat(o.exitCode()).isZero();
                assertThat(o.stdoutText()).isEqualTo(want.toString());
            }

            ResourceSnapshot during = daemon.observer().withHeap();
            assertThat(during.heapAfterGcBytes()).isPresent();
            assertThat(during.heapAfterGcBytes().getAsLong())
                    .as("heap after GC with a stalled stream, baseline %s", base.describe())
                    .isLessThan(base.heapAfterGcBytes().orElse(0) + 32 * MIB);
            assertThat(stalled.isDone()).as("stalled stream still open").isFalse();

            // resume: the stalled stream flows again
            stalled.discardOutput();
            stalled.request(Integer.MAX_VALUE);
            Poll.await(Duration.ofSeconds(30), () -> stalled.stdoutBytes() > 16 * MIB,
                    () -> "stream did not resume: " + stalled.stdoutBytes() + " bytes after request()");

            stalled.cancel();
            assertThat(stalled.awaitDone(Duration.ofSeconds(30)).getCode()).isEqualTo(Status.Code.CANCELLED);
            Poll.await(Duration.ofSeconds(30), () -> daemon.observer().descendants().isEmpty(),
                    () -> "children left after cancel: " + daemon.observer().descendants());
        }
    }

    private static void warmUp(Grpc grpc) throws Exception {
        StartStream s = StartStream.open(grpc, StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                .addAllCommand(List.of("seq", "1", "1000"))).build(), Duration.ofSeconds(60));
        assertThat(s.awaitDone(Duration.ofSeconds(60))).isEqualTo(Status.OK);
    }
}
