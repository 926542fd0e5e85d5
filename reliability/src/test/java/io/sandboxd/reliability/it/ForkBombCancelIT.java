package io.sandboxd.reliability.it;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.reliability.client.Grpc;
import io.sandboxd.reliability.client.StartStream;
import io.sandboxd.reliability.daemon.DaemonLauncher;
import io.sandboxd.reliability.daemon.RunningDaemon;
import io.sandboxd.reliability.proc.ProcStat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A child that forks 1,000 grandchildren, then is cancelled (or times out, or is SIGKILLed):
 * every grandchild is gone and none is left a zombie under the daemon. Each run marks its
 * grandchildren with a unique {@code sleep} argument, so they are found wherever they were reparented.
 */
class ForkBombCancelIT {
    private static RunningDaemon daemon;
    private static Grpc grpc;
    private String marker;

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonLauncher.start(TestDaemons.spec("ForkBombCancelIT"));
        grpc = new Grpc("127.0.0.1", daemon.grpcPort(), Optional.empty());
    }

    @AfterAll
    static void stop() {
        if (grpc != null) {
            grpc.close();
        }
        if (daemon != null) {
            daemon.kill();
        }
    }

    @AfterEach
    void killLeftovers() {
        if (marker != null) {
            Procs.killAllWithArgument(marker);
        }
    }

    private String forkScript(int n) {
        marker = "3600." + (System.nanoTime() % 1_000_000_000L);
        return "i=0; while [ $i -lt " + n + " ]; do sleep " + marker + " & i=$((i+1)); done; echo forked; wait";
    }

    @Test
    void cancelledStartTakesAllThousandGrandchildren() throws Exception {
        StartStream s = StartStream.open(grpc, StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                .addAllCommand(List.of("sh", "-c", forkScript(1000)))).build(), Duration.ofMinutes(5));
        s.awaitInit(Duration.ofSeconds(30));
        assertThat(s.awaitStdout(o -> o.contains("forked"), Duration.ofSeconds(180)))
                .as("the child reported forking 1000 grandchildren; stdout: %s", s.stdoutText()).isTrue();
        // "forked" means 1000 forks returned, not 1000 execs done: the last children may still be `sh`
        Poll.await(Duration.ofSeconds(60), () -> Procs.liveWithArgument(marker).size() == 1000,
                () -> Procs.liveWithArgument(marker).size() + " of 1000 grandchildren alive before the cancel");

        s.cancel();
        assertThat(s.awaitDone(Duration.ofSeconds(30)).getCode()).isEqualTo(Status.Code.CANCELLED);
        assertAllGone();
    }

    @Test
    void executeDeadlineTakesAllGrandchildren() {
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () ->
                grpc.blocking().withDeadlineAfter(8, TimeUnit.SECONDS).execute(ExecuteRequest.newBuilder()
                        .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("sh", "-c", forkScript(300)))).build()));
        assertThat(e).as("Execute of a never-ending fork tree under a deadline").isNotNull();
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertAllGone();
    }

    @Test
    void sigkillToTheGroupTakesAllGrandchildren() throws Exception {
        StartStream s = StartStream.open(grpc, StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                .addAllCommand(List.of("sh", "-c", forkScript(300)))).build(), Duration.ofMinutes(5));
        int pid = s.awaitInit(Duration.ofSeconds(30));
        assertThat(s.awaitStdout(o -> o.contains("forked"), Duration.ofSeconds(120))).isTrue();
        grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).sendSignal(SendSignalRequest.newBuilder()
                .setProcessId(pid).setSignal(Signal.SIGNAL_SIGKILL).build());
        assertThat(s.awaitDone(Duration.ofSeconds(30))).isEqualTo(Status.OK);
        assertThat(s.exitCode()).isEqualTo(137);
        assertAllGone();
    }

    private void assertAllGone() {
        Poll.await(Duration.ofSeconds(60), () -> Procs.liveWithArgument(marker).isEmpty(),
                () -> Procs.liveWithArgument(marker).size() + " grandchildren still alive");
        Poll.await(Duration.ofSeconds(30), () -> daemon.observer().descendants().isEmpty(),
                () -> "daemon still has descendants: " + summary(daemon.observer().descendants()));
        assertThat(daemon.observer().alive()).isTrue();
    }

    private static String summary(List<ProcStat> procs) {
        long zombies = procs.stream().filter(ProcStat::zombie).count();
        return procs.size() + " (" + zombies + " zombies), e.g. " + procs.stream().limit(5).toList();
    }
}
