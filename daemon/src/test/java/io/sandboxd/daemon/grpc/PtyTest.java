package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Empty;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.testkit.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** runtime-contract §1.3 (PTY), §1.5 (^D), §1.7 (resize) with real pseudo-terminals. */
class PtyTest {
    @TempDir
    static Path tmp;

    static GrpcDaemon d;

    @BeforeAll
    static void up() throws Exception {
        d = GrpcDaemon.start(tmp);
    }

    @AfterAll
    static void down() throws Exception {
        d.close();
    }

    static StartCollector startPty(int cols, int rows, String... argv) {
        StartCollector c = new StartCollector();
        d.async()
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .start(
                        StartRequest.newBuilder()
                                .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of(argv)))
                                .setPty(PTY.newBuilder().setCols(cols).setRows(rows))
                                .build(),
                        c);
        return c;
    }

    /**
     * A running PTY process parks no daemon thread: its master is read on the I/O loop and its
     * exit arrives as a pidfd event there (only pty4j's own reaper thread waits for it).
     */
    @Test
    void livePtyProcessesParkNoDaemonThread() throws Exception {
        List<StartCollector> live = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                StartCollector c = startPty(80, 24, "sh", "-c", "echo up; sleep 30");
                c.pid();
                live.add(c);
            }
            // Every shell has printed, so every spawn has returned and its terminal is on the loop.
            Poll.await(
                    Duration.ofSeconds(30),
                    () -> live.stream().allMatch(c -> c.stdout().startsWith("up")),
                    () -> "not every PTY shell printed \"up\"");
            // A parked waiter stays parked; a thread merely passing through the core (a late
            // spawn's epoll registration, seen under load) does not: only the first must fail.
            List<List<String>> snapshot = new ArrayList<>();
            Poll.until(Duration.ofSeconds(5), () -> {
                snapshot.add(0, threadsInTheProcessCore());
                return snapshot.get(0).isEmpty();
            });
            assertThat(snapshot.get(0)).isEmpty();
        } finally {
            for (StartCollector c : live) {
                d.blocking()
                        .sendSignal(SendSignalRequest.newBuilder()
                                .setProcessId(c.pid())
                                .setSignal(Signal.SIGNAL_SIGKILL)
                                .build());
            }
            for (StartCollector c : live) {
                assertThat(c.await().isOk()).isTrue();
                assertThat(c.stdout()).startsWith("up");
                assertThat(c.exitCode()).isEqualTo(128 + 9);
            }
        }
    }

    private static List<String> threadsInTheProcessCore() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> !e.getKey().getName().equals("sandboxd-proc-io"))
                .filter(e -> Arrays.stream(e.getValue())
                        .anyMatch(f -> f.getClassName().startsWith("io.sandboxd.daemon.process.")))
                .map(e -> e.getKey().getName() + " " + Arrays.toString(e.getValue()))
                .toList();
    }

    @Test
    void sttySizeSeesTheInitialSizeIn100Of100Spawns() throws Exception {
        int wrong = 0;
        String firstWrong = null;
        for (int i = 0; i < 100; i++) {
            StartCollector c = startPty(80, 24, "stty", "size");
            assertThat(c.await().isOk()).isTrue();
            assertThat(c.exitCode()).isZero();
            if (!c.stdout().trim().equals("24 80")) {
                wrong++;
                firstWrong = firstWrong == null ? c.stdout() : firstWrong;
            }
        }
        assertThat(wrong).as("wrong sizes, first: %s", firstWrong).isZero();
    }

    @Test
    void zeroSizeMeans80x24AndTermDefaults() throws Exception {
        StartCollector c = startPty(0, 0, "sh", "-c", "stty size; echo $TERM");
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.stdout()).isEqualTo("24 80\r\nxterm-256color\r\n");
    }

    @Test
    void stderrIsMergedIntoStdout() throws Exception {
        StartCollector c = startPty(80, 24, "sh", "-c", "echo to-err 1>&2; test -t 0 && test -t 2 && echo tty");
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.stdout()).isEqualTo("to-err\r\ntty\r\n");
        assertThat(c.events.stream().noneMatch(e -> e.getEventCase() == StartResponse.EventCase.STDERR))
                .isTrue();
        assertThat(c.exitCode()).isZero();
    }

    @Test
    void theTailOfAFastExitIsNeverLost() throws Exception {
        for (int i = 0; i < 20; i++) {
            StartCollector c = startPty(80, 24, "sh", "-c", "head -c 20000 /dev/zero | tr '\\0' x; echo END");
            assertThat(c.await().isOk()).isTrue();
            assertThat(c.stdout()).hasSize(20000 + "END\r\n".length()).endsWith("xEND\r\n");
        }
    }

    @Test
    void aResizeIsSeenByTheProgram() throws Exception {
        StartCollector c = startPty(80, 24, "sh", "-c", "stty size; read x; stty size");
        int id = c.pid();
        Poll.until(Duration.ofSeconds(20), () -> c.stdout().contains("24 80"));
        d.blocking()
                .resizeTTY(ResizeTTYRequest.newBuilder()
                        .setProcessId(id)
                        .setCols(132)
                        .setRows(50)
                        .build());
        d.blocking()
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(id)
                        .setInput(ByteString.copyFromUtf8("\n"))
                        .build());
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.stdout()).contains("24 80\r\n").endsWith("50 132\r\n");
    }

    @Test
    void resizeRejectsOutOfRangeSizes() throws Exception {
        StartCollector c = startPty(80, 24, "sleep", "30");
        int id = c.pid();
        for (int[] size : new int[][] {{0, 24}, {80, 0}, {65536, 24}, {80, -1}}) {
            try {
                d.blocking()
                        .resizeTTY(ResizeTTYRequest.newBuilder()
                                .setProcessId(id)
                                .setCols(size[0])
                                .setRows(size[1])
                                .build());
                throw new AssertionError("accepted " + size[0] + "x" + size[1]);
            } catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            }
        }
        d.blocking()
                .resizeTTY(ResizeTTYRequest.newBuilder()
                        .setProcessId(id)
                        .setCols(65535)
                        .setRows(1)
                        .build());
        d.blocking()
                .sendSignal(SendSignalRequest.newBuilder()
                        .setProcessId(id)
                        .setSignal(Signal.SIGNAL_SIGKILL)
                        .build());
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.exitCode()).isEqualTo(137);
    }

    @Test
    void eofSendsControlDSoCatExitsZero() throws Exception {
        StartCollector c = startPty(80, 24, "cat");
        int id = c.pid();
        d.blocking()
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(id)
                        .setInput(ByteString.copyFromUtf8("hello\n"))
                        .build());
        d.blocking()
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(id)
                        .setEof(Empty.getDefaultInstance())
                        .build());
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.exitCode()).isZero();
        // echo of the line discipline plus cat's copy
        assertThat(c.stdout()).isEqualTo("hello\r\nhello\r\n");
    }

    /**
     * 200 KiB of stdin is far more than a terminal's input queue (4 KiB): the master, which is
     * non-blocking since it is read on the I/O loop, refuses writes with EAGAIN until the program
     * reads, and every byte still arrives, in order, before the ^D.
     */
    @Test
    void stdinLargerThanTheTerminalQueueArrivesWhole() throws Exception {
        StartCollector c = startPty(80, 24, "sh", "-c", "stty -echo; echo ready; wc -c");
        int id = c.pid();
        Poll.until(Duration.ofSeconds(30), () -> c.stdout().contains("ready"));
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 2048; i++) {
            lines.append("x".repeat(99)).append('\n');
        }
        d.blocking()
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(id)
                        .setInput(ByteString.copyFromUtf8(lines.toString()))
                        .build());
        d.blocking()
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(id)
                        .setEof(Empty.getDefaultInstance())
                        .build());
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.exitCode()).isZero();
        assertThat(c.stdout()).isEqualTo("ready\r\n204800\r\n");
    }

    @Test
    void sigintReachesTheForegroundProgram() throws Exception {
        StartCollector c = startPty(80, 24, "sleep", "30");
        int id = c.pid();
        d.blocking()
                .sendSignal(SendSignalRequest.newBuilder()
                        .setProcessId(id)
                        .setSignal(Signal.SIGNAL_SIGINT)
                        .build());
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.exitCode()).isEqualTo(130);
    }
}
