package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.client.Command;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcessTable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A signal or cancel sent the moment the client has the process id (runtime-contract §1.3: the process
 * is registered before init, so signals work as soon as the client has the id) is never lost,
 * even while the child is still between spawn and its own setsid. Found by the soak: under
 * concurrency a SendSignal right after init was sometimes dropped and the stream never ended.
 */
class SignalRightAfterInitIT {
    private static final int THREADS = 4;
    private static final int PER_THREAD = 30;

    @Test
    void immediateSignalsAndCancelsAreNeverLost() throws Exception {
        String marker = "120." + (System.nanoTime() % 1_000_000_000L);
        try (RunningDaemon daemon = spec("SignalRightAfterInitIT").start();
                SandboxdClient client = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase())) {
            SandboxdClient streams = client.withStreamDeadline(Duration.ofSeconds(60));
            ConcurrentLinkedQueue<String> lost = new ConcurrentLinkedQueue<>();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < PER_THREAD; i++) {
                        int kind = (i + thread) % 4;
                        boolean pty = i % 5 == 4;
                        Command sleep = Command.of("sleep", marker);
                        StartRecorder s = new StartRecorder();
                        RemoteProcess p = streams.start(pty ? sleep.tty(80, 24) : sleep, s);
                        try {
                            int pid = Streams.pid(s, Duration.ofSeconds(30));
                            if (kind == 3) {
                                p.cancel();
                                Streams.ended(s, Duration.ofSeconds(30));
                                continue;
                            }
                            Signal sig = kind == 0
                                    ? Signal.SIGNAL_SIGINT
                                    : kind == 1 ? Signal.SIGNAL_SIGTERM : Signal.SIGNAL_SIGKILL;
                            client.sendSignal(pid, sig);
                            Status st = Streams.ended(s, Duration.ofSeconds(15));
                            if (!st.isOk() || s.exitCode() == null || s.exitCode() != 128 + sig.getNumber()) {
                                lost.add(sig + (pty ? " (pty)" : "") + ": " + st + " exit " + s.exitCode());
                            }
                        } catch (Exception e) {
                            lost.add((kind == 3 ? "cancel" : "signal kind " + kind) + (pty ? " (pty)" : "") + ": "
                                    + e.getMessage());
                            p.cancel();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : runs) {
                f.get(10, TimeUnit.MINUTES);
            }
            pool.shutdown();
            assertThat(lost)
                    .as("signals that did not end their process (of %d)", THREADS * PER_THREAD)
                    .isEmpty();
            Poll.await(
                    Duration.ofSeconds(30),
                    () -> ProcessTable.read().liveWithArgument(marker).isEmpty(),
                    () -> ProcessTable.read().liveWithArgument(marker).size()
                            + " sleep processes survived their cancel or signal");
        } finally {
            ProcessTable.killAllWithArgument(marker);
        }
    }

    /**
     * runtime-contract §1.3 [wire]: after the stream ends the id is forgotten, so a call the client makes
     * the moment it has seen the end gets NOT_FOUND (the soak saw FAILED_PRECONDITION: the id
     * was released only after the exit had been sent).
     */
    @Test
    void idIsForgottenByTheTimeTheClientSeesTheStreamEnd() throws Exception {
        try (RunningDaemon daemon = spec("SignalRightAfterInitIT-forgotten").start();
                SandboxdClient client = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase())) {
            List<String> wrong = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                StartRecorder s = new StartRecorder();
                client.withStreamDeadline(Duration.ofSeconds(60)).start(Command.of("true"), s);
                int pid = Streams.pid(s, Duration.ofSeconds(30));
                assertThat(Streams.ended(s, Duration.ofSeconds(30))).isEqualTo(Status.OK);
                try {
                    client.writeStdin(pid, "x".getBytes(StandardCharsets.UTF_8));
                    wrong.add("WriteStdin to " + pid + " after its stream ended succeeded");
                } catch (GrpcCallException e) {
                    if (e.code() != Status.Code.NOT_FOUND) {
                        wrong.add("WriteStdin to " + pid + " after its stream ended: " + e.status());
                    }
                }
            }
            assertThat(wrong).isEmpty();
        }
    }

    private static DaemonSpec spec(String name) {
        return DaemonSpec.packagedJar().withJvmOptions("-Xmx256m").withLogName(name);
    }
}
