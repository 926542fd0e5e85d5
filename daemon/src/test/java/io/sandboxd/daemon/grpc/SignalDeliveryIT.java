package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signals against the packaged daemon where the start-up context matters: a signal sent the
 * instant init arrives (the child may not have called setsid() yet), and a daemon launched with
 * SIGINT ignored (nohup, {@code &} in a script), whose children must still honour SIGINT.
 */
class SignalDeliveryIT {

    private static StartRequest sleep() {
        return StartRequest.newBuilder()
                .setConfig(ProcessConfig.newBuilder().addCommand("sleep").addCommand("30"))
                .build();
    }

    @Test
    void aSignalSentTheMomentInitArrivesIsNeverLost(@TempDir Path root) throws Exception {
        try (RunningDaemon d = DaemonSpec.packagedJar()
                        .withRootDir(root.toRealPath())
                        .withJvmOptions("-Xmx64m")
                        .withReadyTimeout(Duration.ofSeconds(60))
                        .start();
                DaemonChannel ch = DaemonChannel.to(d)) {
            ProcessServiceGrpc.ProcessServiceStub async = ProcessServiceGrpc.newStub(ch.channel);
            ProcessServiceGrpc.ProcessServiceBlockingStub blocking = ProcessServiceGrpc.newBlockingStub(ch.channel);
            List<StartCollector> streams = new ArrayList<>();
            for (int round = 0; round < 10; round++) {
                List<StartCollector> batch = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    StartCollector c = new StartCollector();
                    async.start(sleep(), c);
                    batch.add(c);
                }
                for (StartCollector c : batch) {
                    blocking.withDeadlineAfter(10, TimeUnit.SECONDS)
                            .sendSignal(SendSignalRequest.newBuilder()
                                    .setProcessId(c.pid())
                                    .setSignal(Signal.SIGNAL_SIGKILL)
                                    .build());
                }
                streams.addAll(batch);
            }
            for (StartCollector c : streams) {
                // sleep 30 would still be running had the kill been dropped
                assertThat(c.status.get(15, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
                assertThat(c.exitCode()).isEqualTo(128 + 9);
            }
        }
    }

    @Test
    void childrenHonourSigintWhenTheDaemonStartedWithItIgnored(@TempDir Path root) throws Exception {
        // A non-interactive shell's trap '' makes SIGINT ignored; exec keeps that for the JVM.
        try (RunningDaemon d = DaemonSpec.packagedJar()
                        .withRootDir(root.toRealPath())
                        .withWrapper("/bin/sh", "-c", "trap '' INT; exec \"$@\"", "sh")
                        .withJvmOptions("-Xmx64m")
                        .withReadyTimeout(Duration.ofSeconds(60))
                        .start();
                DaemonChannel ch = DaemonChannel.to(d)) {
            assertThat(ProcStatus.read(d.pid()).orElseThrow().sigIgnMask() & 2L)
                    .as("daemon starts with SIGINT ignored")
                    .isEqualTo(2L);
            StartCollector c = new StartCollector();
            ProcessServiceGrpc.newStub(ch.channel).start(sleep(), c);
            ProcessServiceGrpc.newBlockingStub(ch.channel)
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .sendSignal(SendSignalRequest.newBuilder()
                            .setProcessId(c.pid())
                            .setSignal(Signal.SIGNAL_SIGINT)
                            .build());
            assertThat(c.status.get(15, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
            assertThat(c.exitCode()).isEqualTo(128 + 2);
        }
    }
}
