package io.sandboxd.reliability.it;

import io.grpc.Status;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.reliability.client.Grpc;
import io.sandboxd.reliability.client.StartStream;
import io.sandboxd.reliability.daemon.DaemonLauncher;
import io.sandboxd.reliability.daemon.RunningDaemon;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

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
        try (RunningDaemon daemon = DaemonLauncher.start(TestDaemons.spec("SignalRightAfterInitIT"));
             Grpc grpc = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty())) {
            ConcurrentLinkedQueue<String> lost = new ConcurrentLinkedQueue<>();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < PER_THREAD; i++) {
                        int kind = (i + thread) % 4;
                        boolean pty = i % 5 == 4;
                        StartRequest.Builder req = StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                                .addAllCommand(List.of("sleep", marker)));
                        if (pty) {
                            req.setPty(PTY.newBuilder().setCols(80).setRows(24));
                        }
                        StartStream s = StartStream.open(grpc, req.build(), Duration.ofSeconds(60));
                        try {
                            int pid = s.awaitInit(Duration.ofSeconds(30));
                            if (kind == 3) {
                                s.cancel();
                                s.awaitDone(Duration.ofSeconds(30));
                                continue;
                            }
                            Signal sig = kind == 0 ? Signal.SIGNAL_SIGINT : kind == 1 ? Signal.SIGNAL_SIGTERM : Signal.SIGNAL_SIGKILL;
                            grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).sendSignal(
                                    SendSignalRequest.newBuilder().setProcessId(pid).setSignal(sig).build());
                            Status st = s.awaitDone(Duration.ofSeconds(15));
                            if (!st.isOk() || s.exitCode() == null || s.exitCode() != 128 + sig.getNumber()) {
                                lost.add(sig + (pty ? " (pty)" : "") + ": " + st + " exit " + s.exitCode());
                            }
                        } catch (Exception e) {
                            lost.add((kind == 3 ? "cancel" : "signal kind " + kind) + (pty ? " (pty)" : "") + ": " + e.getMessage());
                            s.cancel();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : runs) {
                f.get(10, TimeUnit.MINUTES);
            }
            pool.shutdown();
            assertThat(lost).as("signals that did not end their process (of %d)", THREADS * PER_THREAD).isEmpty();
            Poll.await(Duration.ofSeconds(30), () -> Procs.liveWithArgument(marker).isEmpty(),
                    () -> Procs.liveWithArgument(marker).size() + " sleep processes survived their cancel or signal");
        } finally {
            Procs.killAllWithArgument(marker);
        }
    }

    /**
     * runtime-contract §1.3 [wire]: after the stream ends the id is forgotten, so a call the client makes
     * the moment it has seen the end gets NOT_FOUND (the soak saw FAILED_PRECONDITION: the id
     * was released only after the exit had been sent).
     */
    @Test
    void idIsForgottenByTheTimeTheClientSeesTheStreamEnd() throws Exception {
        try (RunningDaemon daemon = DaemonLauncher.start(TestDaemons.spec("SignalRightAfterInitIT-forgotten"));
             Grpc grpc = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty())) {
            List<String> wrong = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                StartStream s = StartStream.open(grpc, StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                        .addAllCommand(List.of("true"))).build(), Duration.ofSeconds(60));
                int pid = s.awaitInit(Duration.ofSeconds(30));
                assertThat(s.awaitDone(Duration.ofSeconds(30))).isEqualTo(Status.OK);
                try {
                    grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).writeStdin(
                            io.sandboxd.api.process.v1.WriteStdinRequest.newBuilder().setProcessId(pid)
                                    .setInput(com.google.protobuf.ByteString.copyFromUtf8("x")).build());
                    wrong.add("WriteStdin to " + pid + " after its stream ended succeeded");
                } catch (io.grpc.StatusRuntimeException e) {
                    if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
                        wrong.add("WriteStdin to " + pid + " after its stream ended: " + e.getStatus());
                    }
                }
            }
            assertThat(wrong).isEmpty();
        }
    }
}
