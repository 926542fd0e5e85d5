package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.client.Command;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.SandboxdException;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStat;
import io.sandboxd.testkit.proc.ProcessObserver;
import io.sandboxd.testkit.proc.ResourceSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A client that stops reading a Start stream of {@code yes}: flow control reaches the child (it
 * blocks writing), daemon memory stays bounded, other streams and calls on the same connection
 * are unaffected, reading resumes when the client asks again, and cancel kills the child.
 */
class SlowStreamReaderIT {
    private static final long MIB = 1 << 20;

    @Test
    void stalledReaderIsFlowControlledAndIsolated() throws Exception {
        try (RunningDaemon daemon = DaemonSpec.packagedJar()
                        .withJvmOptions("-Xmx256m")
                        .withLogName("SlowStreamReaderIT")
                        .start();
                SandboxdClient client = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase())) {
            warmUp(client);
            ResourceSnapshot base = daemon.observer().snapshotWithHeap();

            // Pull mode: nothing is asked of the daemon beyond the first message until next() is called.
            RemoteProcess stalled =
                    client.withStreamDeadline(Duration.ofMinutes(5)).start(Command.of("yes", "stalled-reader"));
            assertThat(stalled.awaitInit(Duration.ofSeconds(30)))
                    .as("init of the stalled stream")
                    .isPresent();
            Poll.await(
                    Duration.ofSeconds(20),
                    () -> daemon.observer().liveDescendantsNamed("yes").size() == 1,
                    () -> "yes not found among the daemon's children");
            ProcStat yes = daemon.observer().liveDescendantsNamed("yes").get(0);
            ProcessObserver yesProc = new ProcessObserver(yes.pid());

            Poll.sleep(3000);
            long w1 = yesProc.bytesWritten();
            Poll.sleep(5000);
            long w2 = yesProc.bytesWritten();
            assertThat(w2 - w1)
                    .as("bytes yes wrote in 5 s while the client read nothing (flow control must block it)")
                    .isLessThan(MIB);
            assertThat(w2)
                    .as("bytes buffered between yes and the stalled client")
                    .isLessThan(64 * MIB);

            // other work on the same HTTP/2 connection proceeds
            for (int i = 0; i < 5; i++) {
                ExecResult r = client.execute("echo", "other" + i);
                assertThat(r.stdoutText()).isEqualTo("other" + i + "\n");
            }
            List<StartRecorder> others = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                StartRecorder o = new StartRecorder();
                client.withStreamDeadline(Duration.ofSeconds(60)).start(Command.of("seq", "1", "20000"), o);
                others.add(o);
            }
            StringBuilder want = new StringBuilder();
            for (int i = 1; i <= 20000; i++) {
                want.append(i).append('\n');
            }
            for (StartRecorder o : others) {
                assertThat(Streams.ended(o, Duration.ofSeconds(60))).isEqualTo(Status.OK);
                assertThat(o.exitCode()).isZero();
                assertThat(o.stdoutText()).isEqualTo(want.toString());
            }

            ResourceSnapshot during = daemon.observer().snapshotWithHeap();
            assertThat(during.heapAfterGcBytes()).isPresent();
            assertThat(during.heapAfterGcBytes().getAsLong())
                    .as("heap after GC with a stalled stream, baseline %s", base.describe())
                    .isLessThan(base.heapAfterGcBytes().orElse(0) + 32 * MIB);
            assertThat(stalled.isEnded()).as("stalled stream still open").isFalse();

            // resume: the stalled stream flows again
            AtomicLong stdoutBytes = new AtomicLong();
            Thread reader = new Thread(
                    () -> {
                        try {
                            for (StartResponse ev; (ev = stalled.next()) != null; ) {
                                stdoutBytes.addAndGet(ev.getStdout().size());
                            }
                        } catch (SandboxdException e) {
                            // the cancel below
                        }
                    },
                    "resumed-reader");
            reader.setDaemon(true);
            reader.start();
            Poll.await(
                    Duration.ofSeconds(30),
                    () -> stdoutBytes.get() > 16 * MIB,
                    () -> "stream did not resume: " + stdoutBytes.get() + " bytes after reading again");

            stalled.cancel();
            assertThat(stalled.awaitEnd(Duration.ofSeconds(30)))
                    .as("cancelled stream ended")
                    .isTrue();
            assertThat(stalled.status().getCode()).isEqualTo(Status.Code.CANCELLED);
            Poll.await(
                    Duration.ofSeconds(30),
                    () -> daemon.observer().descendants().isEmpty(),
                    () -> "children left after cancel: " + daemon.observer().descendants());
        }
    }

    private static void warmUp(SandboxdClient client) throws Exception {
        StartRecorder s = new StartRecorder();
        client.withStreamDeadline(Duration.ofSeconds(60)).start(Command.of("seq", "1", "1000"), s);
        assertThat(Streams.ended(s, Duration.ofSeconds(60))).isEqualTo(Status.OK);
    }
}
