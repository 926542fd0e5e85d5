package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.api.code.v1alpha1.CodeContextServiceGrpc;
import io.sandboxd.api.code.v1alpha1.ContextInfo;
import io.sandboxd.api.code.v1alpha1.ContextState;
import io.sandboxd.api.code.v1alpha1.CreateContextRequest;
import io.sandboxd.api.code.v1alpha1.DeleteRequest;
import io.sandboxd.api.code.v1alpha1.ExecutionState;
import io.sandboxd.api.code.v1alpha1.RestartRequest;
import io.sandboxd.api.code.v1alpha1.RestartResponse;
import io.sandboxd.daemon.code.CodeSettings;
import io.sandboxd.daemon.process.os.ChildCredentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restart and Delete racing with executions, and kernels run as another user (issue 20). As root
 * the daemon runs its kernels as nobody (65534), like a --run-as-user daemon in a Pod and like the
 * conformance run in which a Restart once went unanswered. One context goes through every test, in
 * order; Delete is last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CodeRestartTest {
    static final int NOBODY = 65534;

    @TempDir
    static Path tmp;

    static CodeDaemon d;
    static String ctx;
    static boolean asNobody;

    @BeforeAll
    static void up() throws Exception {
        asNobody = isRoot();
        if (asNobody) {
            // the kernel, as nobody, must reach its connection file under the state dir
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        }
        d = new CodeDaemon(
                tmp,
                new CodeSettings(
                        4,
                        CodeSettings.DEFAULT_OUTPUT_LIMIT,
                        CodeSettings.DEFAULT_MAX_MESSAGE_SIZE,
                        Duration.ofMinutes(30),
                        Duration.ofSeconds(90),
                        Duration.ofSeconds(5)),
                asNobody ? ChildCredentials.of(NOBODY, NOBODY, new int[0]) : ChildCredentials.INHERIT);
        ctx = d.create();
    }

    @AfterAll
    static void down() throws Exception {
        d.close();
    }

    static boolean isRoot() throws IOException {
        return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
    }

    @Test
    @Order(1)
    void kernelsRunAsTheRunAsUserWithAPrivateConnectionFile() throws Exception {
        Assumptions.assumeTrue(asNobody, "needs root to run kernels as another user");
        long pid = d.info(ctx).getKernelPid();
        assertThat(uids(pid)).as("real, effective, saved, fs uid of the kernel").containsOnly(NOBODY);
        assertThat(d.run(ctx, "import os\nprint(os.getuid(), os.getgid())").stdout())
                .isEqualTo(NOBODY + " " + NOBODY + "\n");
        List<Path> files = connectionFiles();
        assertThat(files).hasSize(1);
        Path f = files.get(0);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
                .as("readable by the kernel's user alone")
                .isEqualTo("rw-------");
        assertThat(Files.getAttribute(f, "unix:uid")).isEqualTo(NOBODY);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.getParent())))
                .as("the kernel directory: searchable, not listable")
                .isEqualTo("rwx--x--x");
    }

    @Test
    @Order(2)
    void aStateDirTheRunAsUserCannotSearchIsACleanError() throws Exception {
        Assumptions.assumeTrue(asNobody, "needs root to run kernels as another user");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        try {
            assertThatThrownBy(d::create).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                assertThat(e.getStatus().getDescription())
                        .contains("--run-as-user " + NOBODY)
                        .contains("--state-dir")
                        .contains(tmp.toString());
            });
        } finally {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        }
    }

    /**
     * A Restart while one execution runs and another waits: both end ABORTED, and an execution
     * sent while the new kernel starts runs on it. (The queued one was once handed to the old
     * kernel as it went, and the context hung behind it.)
     */
    @Test
    @Order(3)
    void restartAbortsTheRunningAndTheQueuedAndWhatComesNextRunsOnTheNewKernel() throws Exception {
        assertThat(d.run(ctx, "x = 1").status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        long oldPid = d.info(ctx).getKernelPid();
        CodeDaemon.Pending running = d.start(ctx, "import time\nprint('running', flush=True)\ntime.sleep(600)");
        assertThat(running.output.await(60, TimeUnit.SECONDS)).isTrue();
        CodeDaemon.Pending queued = d.start(ctx, "print('queued')");
        awaitQueued(1);

        ListenableFuture<RestartResponse> restart = futures().restart(request(ctx));
        for (CodeDaemon.Pending p : List.of(running, queued)) {
            CodeDaemon.Run r = p.await(30);
            assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_ABORTED);
            assertThat(r.status().getMessage()).contains("restarted");
        }
        assertThat(queued.await(0).stdout()).isEmpty();
        // the old kernel is gone, the new one (a second or more) is starting: this one waits for it
        CodeDaemon.Pending next = d.start(ctx, "import os\nprint('x' in dir(), os.getpid())");
        ContextInfo restarted = restart.get(120, TimeUnit.SECONDS).getContext();
        assertThat(restarted.getKernelPid()).isPositive().isNotEqualTo(oldPid);
        CodeDaemon.Run after = next.await(120);
        assertThat(after.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        assertThat(after.stdout()).isEqualTo("False " + restarted.getKernelPid() + "\n");
        assertGone(oldPid);
    }

    /** Restarts sent at once: each answers, and one kernel is left, the one List shows. */
    @Test
    @Order(4)
    void restartsInARowLeaveOneKernel() throws Exception {
        List<ListenableFuture<RestartResponse>> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            all.add(futures().restart(request(ctx)));
        }
        int ok = 0;
        for (ListenableFuture<RestartResponse> f : all) {
            try {
                f.get(120, TimeUnit.SECONDS);
                ok++;
            } catch (ExecutionException e) {
                // superseded while starting
                assertThat(Status.fromThrowable(e.getCause()).getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                assertThat(Status.fromThrowable(e.getCause()).getDescription()).contains("restarted");
            }
        }
        assertThat(ok).as("the last Restart succeeds").isPositive();
        assertThat(d.run(ctx, "print('after')").stdout()).isEqualTo("after\n");
        long pid = d.info(ctx).getKernelPid();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!kernelsOf(ctx).equals(List.of(pid)) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(kernelsOf(ctx)).as("kernel processes of the context").containsExactly(pid);
    }

    /**
     * Code that ignores SIGINT outlives its timeout's interrupt: the kernel is killed 3 s later,
     * the status says so, and the context is dead until Restart (runtime-contract §4.4).
     */
    @Test
    @Order(5)
    void aTimedOutKernelThatIgnoresTheInterruptIsKilledAndTheContextIsDead() {
        CodeDaemon.Run r = d.run(
                ctx,
                "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.05)",
                300);
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_TIMED_OUT);
        assertThat(r.status().getMessage())
                .contains("timed out after 300 ms")
                .contains("did not stop within 3000 ms of the interrupt and was killed");
        assertThat(d.info(ctx).getState()).isEqualTo(ContextState.CONTEXT_STATE_DEAD);
        assertThat(d.blocking().restart(request(ctx)).getContext().getState())
                .isEqualTo(ContextState.CONTEXT_STATE_IDLE);
    }

    @Test
    @Order(6)
    void aKernelThatExitsIsReportedDeadAndRestartRecovers() {
        assertThat(d.run(ctx, "y = 1").status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        CodeDaemon.Run r = d.run(ctx, "import os\nos._exit(1)");
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_KERNEL_DIED);
        assertThat(r.status().getMessage()).contains("exited (code 1)");
        ContextInfo info = d.info(ctx);
        assertThat(info.getState()).isEqualTo(ContextState.CONTEXT_STATE_DEAD);
        assertThat(info.getKernelPid()).isZero();
        assertThatThrownBy(() -> d.run(ctx, "print(1)"))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
        ContextInfo restarted = d.blocking().restart(request(ctx)).getContext();
        assertThat(restarted.getId()).isEqualTo(ctx);
        assertThat(restarted.getState()).isEqualTo(ContextState.CONTEXT_STATE_IDLE);
        assertThat(restarted.getKernelPid()).isPositive();
        assertThat(restarted.getKernelRssBytes()).isPositive();
        assertThat(d.run(ctx, "print('y' in dir())").stdout()).isEqualTo("False\n");
    }

    /** Delete while one execution runs and another waits: both end ABORTED, the kernel goes. */
    @Test
    @Order(7)
    void deleteAbortsTheRunningAndTheQueued() throws Exception {
        long pid = d.info(ctx).getKernelPid();
        CodeDaemon.Pending running = d.start(ctx, "import time\nprint('running', flush=True)\ntime.sleep(600)");
        assertThat(running.output.await(60, TimeUnit.SECONDS)).isTrue();
        CodeDaemon.Pending queued = d.start(ctx, "print('queued')");
        awaitQueued(1);
        d.blocking().delete(DeleteRequest.newBuilder().setContextId(ctx).build());
        for (CodeDaemon.Pending p : List.of(running, queued)) {
            CodeDaemon.Run r = p.await(30);
            assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_ABORTED);
            assertThat(r.status().getMessage()).contains("deleted");
        }
        assertGone(pid);
        assertThat(connectionFiles()).isEmpty();
        assertThatThrownBy(() -> d.run(ctx, "1")).isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(
                        e.getStatus().getCode())
                .isEqualTo(Status.Code.NOT_FOUND));
    }

    static RestartRequest request(String context) {
        return RestartRequest.newBuilder().setContextId(context).build();
    }

    static CodeContextServiceGrpc.CodeContextServiceFutureStub futures() {
        return CodeContextServiceGrpc.newFutureStub(d.channel).withDeadlineAfter(120, TimeUnit.SECONDS);
    }

    /**
     * A kernel that cannot start says why: its last lines of output end the CreateContext error
     * (and the daemon's log), colour codes and blank lines left out.
     */
    @Test
    @Order(8)
    void aKernelThatCannotStartSaysWhyInItsLastOutput() throws Exception {
        // python -m ipykernel_launcher finds this module first on PYTHONPATH
        Path fake = Files.createDirectories(tmp.resolve("not-a-kernel"));
        Files.writeString(
                fake.resolve("ipykernel_launcher.py"),
                "import sys\n"
                        + "sys.stderr.write('starting\\n\\n')\n"
                        + "sys.stderr.write('\\x1b[31mModuleNotFoundError: nothing here\\x1b[0m\\n')\n"
                        + "sys.exit(3)\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(
                fake.resolve("ipykernel_launcher.py"), PosixFilePermissions.fromString("rw-r--r--"));
        CreateContextRequest request = CreateContextRequest.newBuilder()
                .setLanguage("python")
                .putEnv("PYTHONPATH", fake.toString())
                .build();
        assertThatThrownBy(() -> d.blocking().createContext(request))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription())
                            .isEqualTo("the kernel exited (code 3) while starting; its last output: starting"
                                    + " | ModuleNotFoundError: nothing here");
                });
    }

    static void awaitQueued(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (d.info(ctx).getQueued() != n && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(d.info(ctx).getQueued()).as("queued executions").isEqualTo(n);
    }

    static void assertGone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("kernel %d ended", pid)
                .isFalse();
    }

    /** The kernel processes of a context: their command line names its connection file, {@code <id>-<n>.json}. */
    static List<Long> kernelsOf(String context) throws IOException {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    if (cmdline.contains("/" + context + "-")) {
                        pids.add(Long.parseLong(name));
                    }
                } catch (IOException e) {
                    // ended meanwhile
                }
            }
        }
        return pids;
    }

    /** The Uid line of /proc/PID/status: real, effective, saved, filesystem. */
    static List<Integer> uids(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("Uid:")) {
                return Stream.of(line.substring(4).trim().split("\\s+"))
                        .map(Integer::valueOf)
                        .toList();
            }
        }
        throw new AssertionError("no Uid line for " + pid);
    }

    static List<Path> connectionFiles() throws IOException {
        try (Stream<Path> s = Files.walk(d.state)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".json")).toList();
        }
    }
}
