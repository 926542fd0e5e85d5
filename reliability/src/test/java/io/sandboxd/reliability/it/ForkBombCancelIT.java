package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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
import io.sandboxd.testkit.proc.ProcStat;
import io.sandboxd.testkit.proc.ProcessTable;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A child that forks 1,000 grandchildren, then is cancelled (or times out, or is SIGKILLed):
 * every grandchild is gone and none is left a zombie under the daemon. Each run marks its
 * grandchildren with a unique {@code sleep} argument, so they are found wherever they were reparented.
 */
class ForkBombCancelIT {
    private static RunningDaemon daemon;
    private static SandboxdClient client;
    private String marker;

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx256m")
                .withLogName("ForkBombCancelIT")
                .start();
        client = SandboxdClient.connect(daemon.grpcTarget(), daemon.restBase());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (daemon != null) {
            daemon.killTree();
        }
    }

    @AfterEach
    void killLeftovers() {
        if (marker != null) {
            ProcessTable.killAllWithArgument(marker);
        }
    }

    private String forkScript(int n) {
        marker = "3600." + (System.nanoTime() % 1_000_000_000L);
        return "i=0; while [ $i -lt " + n + " ]; do sleep " + marker + " & i=$((i+1)); done; echo forked; wait";
    }

    @Test
    void cancelledStartTakesAllThousandGrandchildren() throws Exception {
        StartRecorder s = new StartRecorder();
        RemoteProcess p =
                client.withStreamDeadline(Duration.ofMinutes(5)).start(Command.of("sh", "-c", forkScript(1000)), s);
        Streams.pid(s, Duration.ofSeconds(30));
        assertThat(s.awaitStdoutContains("forked", Duration.ofSeconds(180)))
                .as("the child reported forking 1000 grandchildren; stdout: %s", s.stdoutText())
                .isTrue();
        // "forked" means 1000 forks returned, not 1000 execs done: the last children may still be `sh`
        Poll.await(
                Duration.ofSeconds(60),
                () -> liveWithMarker().size() == 1000,
                () -> liveWithMarker().size() + " of 1000 grandchildren alive before the cancel");

        p.cancel();
        assertThat(Streams.ended(s, Duration.ofSeconds(30)).getCode()).isEqualTo(Status.Code.CANCELLED);
        assertAllGone();
    }

    @Test
    void executeDeadlineTakesAllGrandchildren() {
        GrpcCallException e =
                catchThrowableOfType(GrpcCallException.class, () -> client.withCallTimeout(Duration.ofSeconds(8))
                        .execute("sh", "-c", forkScript(300)));
        assertThat(e).as("Execute of a never-ending fork tree under a deadline").isNotNull();
        assertThat(e.code()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertAllGone();
    }

    @Test
    void sigkillToTheGroupTakesAllGrandchildren() throws Exception {
        StartRecorder s = new StartRecorder();
        client.withStreamDeadline(Duration.ofMinutes(5)).start(Command.of("sh", "-c", forkScript(300)), s);
        int pid = Streams.pid(s, Duration.ofSeconds(30));
        assertThat(s.awaitStdoutContains("forked", Duration.ofSeconds(120))).isTrue();
        client.sendSignal(pid, Signal.SIGNAL_SIGKILL);
        assertThat(Streams.ended(s, Duration.ofSeconds(30))).isEqualTo(Status.OK);
        assertThat(s.exitCode()).isEqualTo(137);
        assertAllGone();
    }

    private void assertAllGone() {
        Poll.await(
                Duration.ofSeconds(60),
                () -> liveWithMarker().isEmpty(),
                () -> liveWithMarker().size() + " grandchildren still alive");
        Poll.await(
                Duration.ofSeconds(30),
                () -> daemon.observer().descendants().isEmpty(),
                () -> "daemon still has descendants: "
                        + summary(daemon.observer().descendants()));
        assertThat(daemon.observer().alive()).isTrue();
    }

    private List<ProcStat> liveWithMarker() {
        return ProcessTable.read().liveWithArgument(marker);
    }

    private static String summary(List<ProcStat> procs) {
        long zombies = procs.stream().filter(ProcStat::zombie).count();
        return procs.size() + " (" + zombies + " zombies), e.g. "
                + procs.stream().limit(5).toList();
    }
}
