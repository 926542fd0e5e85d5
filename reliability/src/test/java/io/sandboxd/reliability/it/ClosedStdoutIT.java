package io.sandboxd.reliability.it;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.reliability.client.Grpc;
import io.sandboxd.reliability.client.StartStream;
import io.sandboxd.reliability.daemon.DaemonLauncher;
import io.sandboxd.reliability.daemon.RunningDaemon;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A process that closes stdout (and stderr) but keeps running: its stream stays open until it
 * really exits, the exit code is its own, and stdin and signals still reach it.
 */
class ClosedStdoutIT {
    private static RunningDaemon daemon;
    private static Grpc grpc;

    @BeforeAll
    static void start() throws Exception {
        daemon = DaemonLauncher.start(TestDaemons.spec("ClosedStdoutIT"));
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

    private static StartStream start(String script, boolean pty) {
        StartRequest.Builder b = StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                .addAllCommand(List.of("sh", "-c", script)));
        if (pty) {
            b.setPty(PTY.newBuilder().setCols(80).setRows(24));
        }
        return StartStream.open(grpc, b.build(), Duration.ofSeconds(120));
    }

    @Test
    void streamWaitsForTheRealExitAfterStdoutCloses() throws Exception {
        long t0 = System.nanoTime();
        StartStream s = start("echo before; exec >&- 2>&-; sleep 2; exit 5", false);
        s.awaitInit(Duration.ofSeconds(30));
        assertThat(s.awaitDone(Duration.ofSeconds(60))).isEqualTo(Status.OK);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(s.stdoutText()).isEqualTo("before\n");
        assertThat(s.exitCode()).as("exit code of the process, after its stdout closed").isEqualTo(5);
        assertThat(ms).as("stream lasted until the process exited (sleep 2 after closing stdout)").isGreaterThanOrEqualTo(1900);
        assertThat(s.violations()).isEmpty();
    }

    @Test
    void stdinStillReachesAProcessWithClosedStdout() throws Exception {
        StartStream s = start("exec >&- 2>&-; read x; [ \"$x\" = hello ] && exit 7; exit 1", false);
        int pid = s.awaitInit(Duration.ofSeconds(30));
        Poll.sleep(300);
        grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid).setInput(ByteString.copyFromUtf8("hello\n")).build());
        assertThat(s.awaitDone(Duration.ofSeconds(60))).isEqualTo(Status.OK);
        assertThat(s.exitCode()).isEqualTo(7);
    }

    @Test
    void signalStillReachesAProcessWithClosedStdout() throws Exception {
        StartStream s = start("exec >&- 2>&-; exec sleep 600", false);
        int pid = s.awaitInit(Duration.ofSeconds(30));
        Poll.sleep(500);
        assertThat(s.isDone()).as("stream ended when stdout closed, before the process exited").isFalse();
        grpc.blocking().withDeadlineAfter(30, TimeUnit.SECONDS).sendSignal(SendSignalRequest.newBuilder()
                .setProcessId(pid).setSignal(Signal.SIGNAL_SIGTERM).build());
        assertThat(s.awaitDone(Duration.ofSeconds(60))).isEqualTo(Status.OK);
        assertThat(s.exitCode()).isEqualTo(143);
        Poll.await(Duration.ofSeconds(30), () -> daemon.observer().descendants().isEmpty(),
                () -> "children left: " + daemon.observer().descendants());
    }

    @Test
    void executeWaitsForTheRealExitAndKeepsStderr() {
        long t0 = System.nanoTime();
        ExecuteResponse r = grpc.blocking().withDeadlineAfter(60, TimeUnit.SECONDS).execute(ExecuteRequest.newBuilder()
                .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("sh", "-c",
                        "echo out; exec >&-; sleep 1; echo err >&2; exit 3"))).build());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r.getExitCode()).isEqualTo(3);
        assertThat(r.getStdout().toStringUtf8()).isEqualTo("out\n");
        assertThat(r.getStderr().toStringUtf8()).isEqualTo("err\n");
        assertThat(ms).isGreaterThanOrEqualTo(900);
    }

    @Test
    void ptyProcessThatStopsWritingStillReportsItsExit() throws Exception {
        StartStream s = start("echo x; exec >/dev/null 2>&1; sleep 1; exit 4", true);
        s.awaitInit(Duration.ofSeconds(30));
        assertThat(s.awaitDone(Duration.ofSeconds(60))).isEqualTo(Status.OK);
        assertThat(s.stdoutText()).contains("x");
        assertThat(s.exitCode()).isEqualTo(4);
    }
}
