package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Empty;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.proc.ProcessTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** runtime-contract §1.2–1.7 against a real daemon on loopback, a real grpc-java client and real processes. */
class ProcessServiceTest {
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

    static ProcessConfig cmd(String... argv) {
        return ProcessConfig.newBuilder().addAllCommand(List.of(argv)).build();
    }

    static ExecuteResponse execute(ProcessConfig config) {
        return d.blocking()
                .execute(ExecuteRequest.newBuilder().setConfig(config).build());
    }

    static StartCollector start(StartRequest req) {
        StartCollector c = new StartCollector();
        d.async().withDeadlineAfter(60, TimeUnit.SECONDS).start(req, c);
        return c;
    }

    static StartCollector start(ProcessConfig config) {
        return start(StartRequest.newBuilder().setConfig(config).build());
    }

    static Status.Code codeOf(Runnable call) {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
        return Status.Code.OK;
    }

    static Status.Code codeOfStatic(Runnable call) {
        return codeOf(call);
    }

    static String messageOf(Runnable call) {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            return e.getStatus().getDescription();
        }
        return null;
    }

    static void write(int id, String s) {
        d.blocking()
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(id)
                        .setInput(ByteString.copyFromUtf8(s))
                        .build());
    }

    static void eof(int id) {
        d.blocking()
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(id)
                        .setEof(Empty.getDefaultInstance())
                        .build());
    }

    static void signal(int id, Signal sig) {
        d.blocking()
                .sendSignal(SendSignalRequest.newBuilder()
                        .setProcessId(id)
                        .setSignal(sig)
                        .build());
    }

    // ---- §1.3 Start

    @Test
    void startSendsInitThenOutputThenExitWithStdoutStderrSplit() throws Exception {
        StartCollector c = start(cmd("sh", "-c", "echo out; echo err 1>&2; exit 7"));
        assertThat(c.await().getCode()).isEqualTo(Status.Code.OK);
        assertThat(c.events.get(0).getEventCase()).isEqualTo(StartResponse.EventCase.INIT);
        assertThat(c.events.get(0).getInit().getProcessId()).isPositive();
        assertThat(c.events.stream().filter(e -> e.getEventCase() == StartResponse.EventCase.INIT))
                .hasSize(1);
        assertThat(c.events.stream().filter(e -> e.getEventCase() == StartResponse.EventCase.EXIT))
                .hasSize(1);
        assertThat(c.exitCode()).isEqualTo(7);
        assertThat(c.stdout()).isEqualTo("out\n");
        assertThat(c.stderr()).isEqualTo("err\n");
    }

    @Test
    void idsArePositiveIncreasingAndForgottenAfterTheStreamEnds() throws Exception {
        StartCollector a = start(cmd("true"));
        a.await();
        StartCollector b = start(cmd("true"));
        b.await();
        int ida = a.pid();
        int idb = b.pid();
        assertThat(idb).isGreaterThan(ida);
        assertThat(codeOf(() -> signal(ida, Signal.SIGNAL_SIGTERM))).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(codeOf(() -> write(idb, "x"))).isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void orderWithinAStreamIsPreservedAcrossManyChunks() throws Exception {
        StartCollector c = start(cmd("sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done"));
        assertThat(c.await().isOk()).isTrue();
        String[] lines = c.stdout().split("\n");
        assertThat(lines).hasSize(2000);
        for (int i = 0; i < lines.length; i++) {
            assertThat(lines[i]).isEqualTo("line" + i);
        }
    }

    @Test
    void aLoneEchoArrivesWhileTheProcessStillRuns() throws Exception {
        StartCollector c = start(cmd("sh", "-c", "echo first; sleep 30"));
        int id = c.pid();
        Poll.until(Duration.ofSeconds(20), () -> c.stdout().equals("first\n"));
        assertThat(c.stdout()).isEqualTo("first\n");
        assertThat(c.status).isNotDone();
        signal(id, Signal.SIGNAL_SIGKILL);
        c.await();
        assertThat(c.exitCode()).isEqualTo(137);
    }

    @Test
    void deathBySignalReports128PlusN() throws Exception {
        StartCollector c = start(cmd("sleep", "30"));
        signal(c.pid(), Signal.SIGNAL_SIGTERM);
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.exitCode()).isEqualTo(128 + 15);
    }

    @Test
    void aBackgroundChildHoldingThePipesDoesNotHoldTheExit() throws Exception {
        long t0 = System.nanoTime();
        StartCollector c = start(cmd("sh", "-c", "sleep 30 & echo $!; echo done"));
        assertThat(c.await().isOk()).isTrue();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(c.exitCode()).isZero();
        assertThat(c.stdout()).endsWith("done\n");
        assertThat(ms).isLessThan(15_000);
        long bg = Long.parseLong(c.stdout().split("\n")[0]);
        Runtime.getRuntime()
                .exec(new String[] {"kill", "-9", Long.toString(bg)})
                .waitFor();
    }

    // ---- §1.2 command construction

    @Test
    void executeReturnsOutputAndNonZeroExitIsNotAnError() {
        ExecuteResponse r = execute(cmd("sh", "-c", "echo hello; echo oops 1>&2; exit 3"));
        assertThat(r.getExitCode()).isEqualTo(3);
        assertThat(r.getStdout().toStringUtf8()).isEqualTo("hello\n");
        assertThat(r.getStderr().toStringUtf8()).isEqualTo("oops\n");
    }

    @Test
    void emptyCommandIsInvalidArgument() {
        assertThat(codeOf(() -> execute(ProcessConfig.getDefaultInstance()))).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(codeOf(() -> d.blocking().execute(ExecuteRequest.getDefaultInstance())))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        StartCollector c = start(ProcessConfig.getDefaultInstance());
        assertThat(await(c).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(c.events).isEmpty();
    }

    static Status await(StartCollector c) {
        try {
            return c.await();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void envIsMergedOverTheDaemonEnvironmentAndPwdIsTheRealCwd() throws Exception {
        Files.createDirectories(d.root.resolve("sub"));
        ExecuteResponse r = execute(cmd("sh", "-c", "echo $FOO; echo $PATH; echo $PWD; pwd").toBuilder()
                .putEnvVars("FOO", "bar")
                .setCwd("sub")
                .build());
        String[] out = r.getStdout().toStringUtf8().split("\n");
        assertThat(out[0]).isEqualTo("bar");
        assertThat(out[1]).isEqualTo(System.getenv("PATH"));
        assertThat(out[2]).isEqualTo(d.root.resolve("sub").toString());
        assertThat(out[3]).isEqualTo(d.root.resolve("sub").toString());
        ExecuteResponse over = execute(cmd("sh", "-c", "echo $PATH").toBuilder()
                .putEnvVars("PATH", "/x:/usr/bin:/bin")
                .build());
        assertThat(over.getStdout().toStringUtf8()).isEqualTo("/x:/usr/bin:/bin\n");
    }

    @Test
    void cwdRules() throws Exception {
        Files.createDirectories(d.root.resolve("a/b"));
        Files.writeString(d.root.resolve("file.txt"), "x");
        assertThat(execute(cmd("pwd")).getStdout().toStringUtf8()).isEqualTo(d.root + "\n");
        assertThat(execute(cmd("pwd").toBuilder().setCwd("").build())
                        .getStdout()
                        .toStringUtf8())
                .isEqualTo(d.root + "\n");
        assertThat(execute(cmd("pwd").toBuilder().setCwd("a/b").build())
                        .getStdout()
                        .toStringUtf8())
                .isEqualTo(d.root + "/a/b\n");
        assertThat(execute(cmd("pwd").toBuilder().setCwd("/a").build())
                        .getStdout()
                        .toStringUtf8())
                .isEqualTo(d.root + "/a\n");
        assertThat(execute(cmd("pwd").toBuilder().setCwd(d.root + "/a/b").build())
                        .getStdout()
                        .toStringUtf8())
                .isEqualTo(d.root + "/a/b\n");
        assertThat(codeOf(() -> execute(cmd("pwd").toBuilder().setCwd("../..").build())))
                .isEqualTo(Status.Code.PERMISSION_DENIED);
        Files.createSymbolicLink(d.root.resolve("out"), Path.of("/tmp"));
        assertThat(codeOf(() -> execute(cmd("pwd").toBuilder().setCwd("out").build())))
                .isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(codeOf(() -> execute(cmd("pwd").toBuilder().setCwd("missing").build())))
                .isEqualTo(Status.Code.NOT_FOUND);
        assertThat(messageOf(
                        () -> execute(cmd("pwd").toBuilder().setCwd("missing").build())))
                .contains("missing")
                .doesNotContain("pwd\"");
        assertThat(codeOf(
                        () -> execute(cmd("pwd").toBuilder().setCwd("file.txt").build())))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        StartCollector c = start(cmd("pwd").toBuilder().setCwd("../..").build());
        assertThat(await(c).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    }

    @Test
    void binaryNotFoundAndNotExecutable() throws Exception {
        assertThat(codeOf(() -> execute(cmd("no-such-binary-xyz")))).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(codeOf(() -> execute(cmd("/no/such/binary")))).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(codeOf(() -> execute(cmd("")))).isEqualTo(Status.Code.NOT_FOUND);
        Path script = d.root.resolve("noexec.sh");
        Files.writeString(script, "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(codeOf(() -> execute(cmd("./noexec.sh")))).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(codeOf(() -> execute(cmd("/tmp")))).isEqualTo(Status.Code.PERMISSION_DENIED);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(execute(cmd("./noexec.sh")).getStdout().toStringUtf8()).isEqualTo("hi\n");
        StartCollector c = start(cmd("no-such-binary-xyz"));
        assertThat(await(c).getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void executeStdinIsDevNull() {
        ExecuteResponse r = execute(cmd("sh", "-c", "cat; echo rc=$?"));
        assertThat(r.getStdout().toStringUtf8()).isEqualTo("rc=0\n");
    }

    @Test
    void executeWithABackgroundChildHoldingThePipesSucceeds() {
        long t0 = System.nanoTime();
        ExecuteResponse r = execute(cmd("sh", "-c", "sleep 30 & echo started"));
        assertThat(r.getExitCode()).isZero();
        assertThat(r.getStdout().toStringUtf8()).isEqualTo("started\n");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(15_000);
    }

    @Test
    void executeDeadlineKillsTheWholeGroup() throws Exception {
        Path pidFile = d.root.resolve("exec-deadline.pid");
        assertThat(codeOf(() -> d.blocking()
                        .withDeadlineAfter(3, TimeUnit.SECONDS)
                        .execute(ExecuteRequest.newBuilder()
                                .setConfig(cmd("sh", "-c", "echo $$ > exec-deadline.pid; sleep 300 & sleep 300"))
                                .build())))
                .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        long sid = Long.parseLong(Files.readString(pidFile).trim());
        Poll.until(
                Duration.ofMillis(10_000),
                () -> ProcessTable.read().liveInSession(sid).isEmpty());
        assertThat(ProcessTable.read().liveInSession(sid)).isEmpty();
    }

    // ---- §1.5 WriteStdin

    @Test
    void writeStdinThenEofWithCat() throws Exception {
        StartCollector c = start(cmd("cat"));
        int id = c.pid();
        write(id, "piped-");
        write(id, "through");
        d.blocking().writeStdin(WriteStdinRequest.newBuilder().setProcessId(id).build()); // empty oneof: no-op
        write(id, "");
        eof(id);
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.stdout()).isEqualTo("piped-through");
        assertThat(c.exitCode()).isZero();
    }

    @Test
    void writeAfterEofIsFailedPrecondition() throws Exception {
        StartCollector c = start(cmd("sleep", "30"));
        int id = c.pid();
        eof(id);
        eof(id); // a repeated eof is OK
        assertThat(codeOf(() -> write(id, "x"))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        signal(id, Signal.SIGNAL_SIGKILL);
        c.await();
    }

    @Test
    void writeStdinUnknownIdIsNotFound() {
        assertThat(codeOf(() -> write(424242, "x"))).isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void aWriteIntoAChildThatDoesNotReadHonoursTheDeadline() throws Exception {
        StartCollector c = start(cmd("sleep", "60"));
        int id = c.pid();
        byte[] big = new byte[4 * 1024 * 1024 - 1024];
        long t0 = System.nanoTime();
        Status.Code code = codeOf(() -> d.blocking()
                .withDeadlineAfter(1, TimeUnit.SECONDS)
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(id)
                        .setInput(ByteString.copyFrom(big))
                        .build()));
        assertThat(code).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(10_000);
        // the daemon is not blocked: other calls on the same process still work
        signal(id, Signal.SIGNAL_SIGKILL);
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.exitCode()).isEqualTo(137);
    }

    // ---- §1.6 SendSignal

    @Test
    void sendSignalValidation() throws Exception {
        assertThat(codeOf(() -> signal(424242, Signal.SIGNAL_UNSPECIFIED))).isEqualTo(Status.Code.NOT_FOUND);
        StartCollector c = start(cmd("sleep", "30"));
        int id = c.pid();
        assertThat(codeOf(() -> signal(id, Signal.SIGNAL_UNSPECIFIED))).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(codeOf(() -> d.blocking()
                        .sendSignal(SendSignalRequest.newBuilder()
                                .setProcessId(id)
                                .setSignalValue(3)
                                .build())))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        signal(id, Signal.SIGNAL_SIGKILL);
        c.await();
        assertThat(c.exitCode()).isEqualTo(137);
    }

    @Test
    void sigtermReachesGrandchildren() throws Exception {
        StartCollector c = start(cmd("sh", "-c", "echo $$; sleep 300 & sleep 300"));
        int id = c.pid();
        long sid = awaitFirstLine(c);
        // the shell forks its sleeps after printing its pid
        Poll.until(
                Duration.ofSeconds(20),
                () -> ProcessTable.read().liveInSession(sid).size() >= 2);
        assertThat(ProcessTable.read().liveInSession(sid)).hasSizeGreaterThanOrEqualTo(2);
        signal(id, Signal.SIGNAL_SIGTERM);
        assertThat(c.await().isOk()).isTrue();
        assertThat(c.exitCode()).isEqualTo(143);
        Poll.until(
                Duration.ofMillis(10_000),
                () -> ProcessTable.read().liveInSession(sid).isEmpty());
        assertThat(ProcessTable.read().liveInSession(sid)).isEmpty();
    }

    @Test
    void clientCancelOfStartEndsTheWholeTree() throws Exception {
        Context.CancellableContext ctx = Context.current().withCancellation();
        StartCollector c = new StartCollector();
        ctx.run(() -> d.async()
                .start(
                        StartRequest.newBuilder()
                                .setConfig(cmd("sh", "-c", "echo $$; sleep 300 & sleep 300"))
                                .build(),
                        c));
        long sid = awaitFirstLine(c);
        assertThat(ProcessTable.read().liveInSession(sid)).isNotEmpty();
        ctx.cancel(null);
        Poll.until(
                Duration.ofMillis(10_000),
                () -> ProcessTable.read().liveInSession(sid).isEmpty());
        assertThat(ProcessTable.read().liveInSession(sid)).isEmpty();
        assertThat(c.await().getCode()).isEqualTo(Status.Code.CANCELLED);
    }

    static long awaitFirstLine(StartCollector c) throws InterruptedException {
        Poll.until(Duration.ofSeconds(20), () -> c.stdout().contains("\n"));
        return Long.parseLong(c.stdout().split("\n")[0].trim());
    }

    // ---- §1.7 ResizeTTY

    @Test
    void resizeValidation() throws Exception {
        assertThat(codeOf(() -> d.blocking()
                        .resizeTTY(ResizeTTYRequest.newBuilder()
                                .setProcessId(424242)
                                .setCols(80)
                                .setRows(24)
                                .build())))
                .isEqualTo(Status.Code.NOT_FOUND);
        StartCollector pipe = start(cmd("sleep", "30"));
        int id = pipe.pid();
        assertThat(codeOf(() -> d.blocking()
                        .resizeTTY(ResizeTTYRequest.newBuilder()
                                .setProcessId(id)
                                .setCols(80)
                                .setRows(24)
                                .build())))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        signal(id, Signal.SIGNAL_SIGKILL);
        pipe.await();
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
