package io.sandboxd.reliability.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.client.Command;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A process that closes stdout (and stderr) but keeps running: its stream stays open until it
 * really exits, the exit code is its own, and stdin and signals still reach it.
 */
class ClosedStdoutIT {
    private static RunningDaemon daemon;
    private static SandboxdClient client;

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx256m")
                .withLogName("ClosedStdoutIT")
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

    private static StartRecorder start(String script, boolean pty) {
        Command c = Command.of("sh", "-c", script);
        StartRecorder s = new StartRecorder();
        client.withStreamDeadline(Duration.ofSeconds(120)).start(pty ? c.tty(80, 24) : c, s);
        return s;
    }

    @Test
    void streamWaitsForTheRealExitAfterStdoutCloses() throws Exception {
        long t0 = System.nanoTime();
        StartRecorder s = start("echo before; exec >&- 2>&-; sleep 2; exit 5", false);
        Streams.pid(s, Duration.ofSeconds(30));
        assertThat(Streams.ended(s, Duration.ofSeconds(60))).isEqualTo(Status.OK);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(s.stdoutText()).isEqualTo("before\n");
        assertThat(s.exitCode())
                .as("exit code of the process, after its stdout closed")
                .isEqualTo(5);
        assertThat(ms)
                .as("stream lasted until the process exited (sleep 2 after closing stdout)")
                .isGreaterThanOrEqualTo(1900);
        assertThat(s.violations()).isEmpty();
    }

    @Test
    void stdinStillReachesAProcessWithClosedStdout() throws Exception {
        StartRecorder s = start("exec >&- 2>&-; read x; [ \"$x\" = hello ] && exit 7; exit 1", false);
        int pid = Streams.pid(s, Duration.ofSeconds(30));
        Poll.sleep(300);
        client.writeStdin(pid, "hello\n".getBytes(StandardCharsets.UTF_8));
        assertThat(Streams.ended(s, Duration.ofSeconds(60))).isEqualTo(Status.OK);
        assertThat(s.exitCode()).isEqualTo(7);
    }

    @Test
    void signalStillReachesAProcessWithClosedStdout() throws Exception {
        StartRecorder s = start("exec >&- 2>&-; exec sleep 600", false);
        int pid = Streams.pid(s, Duration.ofSeconds(30));
        Poll.sleep(500);
        assertThat(s.isEnded())
                .as("stream ended when stdout closed, before the process exited")
                .isFalse();
        client.sendSignal(pid, Signal.SIGNAL_SIGTERM);
        assertThat(Streams.ended(s, Duration.ofSeconds(60))).isEqualTo(Status.OK);
        assertThat(s.exitCode()).isEqualTo(143);
        Poll.await(
                Duration.ofSeconds(30),
                () -> daemon.observer().descendants().isEmpty(),
                () -> "children left: " + daemon.observer().descendants());
    }

    @Test
    void executeWaitsForTheRealExitAndKeepsStderr() {
        long t0 = System.nanoTime();
        ExecResult r = client.withCallTimeout(Duration.ofSeconds(60))
                .execute("sh", "-c", "echo out; exec >&-; sleep 1; echo err >&2; exit 3");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.stdoutText()).isEqualTo("out\n");
        assertThat(r.stderrText()).isEqualTo("err\n");
        assertThat(ms).isGreaterThanOrEqualTo(900);
    }

    @Test
    void ptyProcessThatStopsWritingStillReportsItsExit() throws Exception {
        StartRecorder s = start("echo x; exec >/dev/null 2>&1; sleep 1; exit 4", true);
        Streams.pid(s, Duration.ofSeconds(30));
        assertThat(Streams.ended(s, Duration.ofSeconds(60))).isEqualTo(Status.OK);
        assertThat(s.stdoutText()).contains("x");
        assertThat(s.exitCode()).isEqualTo(4);
    }
}
