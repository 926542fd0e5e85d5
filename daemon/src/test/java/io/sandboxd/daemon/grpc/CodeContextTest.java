package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.api.code.v1alpha1.ContextInfo;
import io.sandboxd.api.code.v1alpha1.ContextState;
import io.sandboxd.api.code.v1alpha1.CreateContextRequest;
import io.sandboxd.api.code.v1alpha1.DeleteRequest;
import io.sandboxd.api.code.v1alpha1.ExecuteEvent;
import io.sandboxd.api.code.v1alpha1.ExecutionState;
import io.sandboxd.api.code.v1alpha1.InterruptRequest;
import io.sandboxd.api.code.v1alpha1.ListRequest;
import io.sandboxd.api.code.v1alpha1.MimeData;
import io.sandboxd.api.code.v1alpha1.RichOutputKind;
import io.sandboxd.daemon.code.CodeSettings;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Code contexts (issue 20, runtime-contract §4.4) with real ipykernel kernels (Debian's
 * python3-ipykernel, python3-matplotlib) behind a real daemon on loopback. Kernel start costs
 * 1-2 s of CPU, so one shared context serves every test that only needs a working kernel, and the
 * second one (for concurrency) starts at the same time. Restart and Delete: {@link CodeRestartTest}.
 */
class CodeContextTest {
    @TempDir
    static Path tmp;

    static CodeDaemon d;
    /** Shared by the tests that keep it healthy; holds x = 41 from the first use on. */
    static String shared;
    /** A second context, for {@link #twoContextsRunConcurrently}. */
    static String other;

    @BeforeAll
    static void up() throws Exception {
        d = new CodeDaemon(
                tmp,
                new CodeSettings(
                        8,
                        CodeSettings.DEFAULT_OUTPUT_LIMIT,
                        CodeSettings.DEFAULT_MAX_MESSAGE_SIZE,
                        java.time.Duration.ofMinutes(30),
                        java.time.Duration.ofSeconds(90),
                        java.time.Duration.ofSeconds(5)));
        CompletableFuture<String> second = CompletableFuture.supplyAsync(d::create);
        shared = d.create();
        other = second.get(180, TimeUnit.SECONDS);
        assertThat(d.run(shared, "x = 41").status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
    }

    @AfterAll
    static void down() throws Exception {
        List<Long> pids = d.blocking().list(ListRequest.getDefaultInstance()).getContextsList().stream()
                .map(ContextInfo::getKernelPid)
                .filter(p -> p > 0)
                .toList();
        assertThat(pids).isNotEmpty();
        d.close();
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("kernel %d ended by shutdown", pid)
                    .isFalse();
        }
        try (var s = Files.walk(d.state)) {
            assertThat(s.filter(p -> p.getFileName().toString().endsWith(".json"))
                            .toList())
                    .as("connection files removed")
                    .isEmpty();
        }
    }

    @Test
    void stateIsKeptAcrossExecutions() {
        CodeDaemon.Run r = d.run(shared, "print(x + 1)");
        assertThat(r.stdout()).isEqualTo("42\n");
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        assertThat(r.status().getExecutionCount()).isGreaterThan(1);
        CodeDaemon.Run value = d.run(shared, "x + 1");
        assertThat(value.outputs()).hasSize(1);
        assertThat(value.outputs().get(0).getRich().getKind())
                .isEqualTo(RichOutputKind.RICH_OUTPUT_KIND_EXECUTE_RESULT);
        assertThat(value.outputs().get(0).getRich().getDataList())
                .contains(MimeData.newBuilder()
                        .setMimeType("text/plain")
                        .setText("42")
                        .build());
    }

    @Test
    void aMatplotlibFigureArrivesAsPngBytes() throws Exception {
        CodeDaemon.Run r = d.run(
                shared, "import matplotlib.pyplot as plt\nplt.figure(figsize=(2, 1))\nplt.plot([1, 3, 2])\nplt.show()");
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        MimeData png = r.outputs().stream()
                .filter(ExecuteEvent::hasRich)
                .flatMap(e -> e.getRich().getDataList().stream())
                .filter(m -> m.getMimeType().equals("image/png"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no image/png in " + r.outputs()));
        byte[] bytes = png.getBinary().toByteArray();
        assertThat(bytes).startsWith(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
        var image = ImageIO.read(new ByteArrayInputStream(bytes));
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isGreaterThan(50);
    }

    @Test
    void anExceptionGivesNameValueTracebackAndTheContextKeepsWorking() {
        CodeDaemon.Run r = d.run(shared, "1 / 0");
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_ERROR);
        ExecuteEvent err =
                r.outputs().stream().filter(ExecuteEvent::hasError).findFirst().orElseThrow();
        assertThat(err.getError().getName()).isEqualTo("ZeroDivisionError");
        assertThat(err.getError().getValue()).isEqualTo("division by zero");
        assertThat(String.join("\n", err.getError().getTracebackList())).contains("ZeroDivisionError");
        assertThat(d.run(shared, "print(x)").stdout()).isEqualTo("41\n");
    }

    @Test
    void inputIsAnErrorTheCodeSees() {
        CodeDaemon.Run r =
                d.run(shared, "try:\n    input('name? ')\nexcept Exception as e:\n    print(type(e).__name__)");
        assertThat(r.stdout()).contains("StdinNotImplementedError");
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
    }

    @Test
    void anInfiniteLoopIsInterruptedWithinOneSecondAndStateIsKept() throws Exception {
        CodeDaemon.Pending loop = d.start(shared, "print('looping', flush=True)\nwhile True:\n    pass");
        assertThat(loop.output.await(60, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(200); // inside the loop
        assertThat(d.info(shared).getState()).isEqualTo(ContextState.CONTEXT_STATE_BUSY);
        long t0 = System.nanoTime();
        d.blocking()
                .interrupt(InterruptRequest.newBuilder().setContextId(shared).build());
        CodeDaemon.Run r = loop.await(10);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(millis).as("interrupt to final status").isLessThan(1000);
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_ERROR);
        assertThat(r.outputs())
                .anyMatch(e -> e.hasError() && e.getError().getName().equals("KeyboardInterrupt"));
        assertThat(d.run(shared, "print(x)").stdout()).isEqualTo("41\n");
    }

    @Test
    void aTimeoutInterruptsAndReportsTimedOut() {
        long t0 = System.nanoTime();
        CodeDaemon.Run r = d.run(shared, "import time\ntime.sleep(60)", 500);
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_TIMED_OUT);
        assertThat(r.status().getMessage()).contains("timed out after 500 ms");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(30_000);
        assertThat(d.run(shared, "print(x)").stdout()).isEqualTo("41\n");
    }

    @Test
    void executionsOnOneContextRunInSubmissionOrder() throws Exception {
        assertThat(d.run(shared, "import time\norder = []").status().getState())
                .isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        List<CodeDaemon.Pending> all = new ArrayList<>();
        String[] codes = {"time.sleep(0.5)\norder.append('a')", "order.append('b')", "order.append('c')"};
        for (String code : codes) {
            all.add(d.start(shared, code));
        }
        for (CodeDaemon.Pending p : all) {
            assertThat(p.await(60).status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        }
        assertThat(d.run(shared, "print(order)").stdout()).isEqualTo("['a', 'b', 'c']\n");
    }

    @Test
    void twoContextsRunConcurrently() throws Exception {
        try {
            String code = "import time\nt0 = time.time()\ntime.sleep(1.5)\nprint(t0, time.time())";
            CompletableFuture<CodeDaemon.Run> a = CompletableFuture.supplyAsync(() -> d.run(shared, code));
            CompletableFuture<CodeDaemon.Run> b = CompletableFuture.supplyAsync(() -> d.run(other, code));
            double[] ra = times(a.get(60, TimeUnit.SECONDS));
            double[] rb = times(b.get(60, TimeUnit.SECONDS));
            assertThat(Math.max(ra[0], rb[0]))
                    .as("both ran at once: one started before the other ended")
                    .isLessThan(Math.min(ra[1], rb[1]));
            assertThat(d.run(other, "print('x' in dir())").stdout()).isEqualTo("False\n");
        } finally {
            d.blocking().delete(DeleteRequest.newBuilder().setContextId(other).build());
        }
        assertThat(d.info(other)).isNull();
    }

    private static double[] times(CodeDaemon.Run r) {
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        String[] parts = r.stdout().strip().split(" ");
        return new double[] {Double.parseDouble(parts[0]), Double.parseDouble(parts[1])};
    }

    @Test
    void aKernelMessageWithAWrongSignatureIsDropped() {
        long before = d.info(shared).getBadSignatures();
        CodeDaemon.Run r = d.run(
                shared,
                String.join(
                        "\n",
                        "from jupyter_client.session import Session",
                        "k = get_ipython().kernel",
                        "Session(key=b'not-the-key').send(k.iopub_socket, 'stream',",
                        "    {'name': 'stdout', 'text': 'FORGED\\n'}, parent=k.get_parent('shell'))",
                        "k.session.send(k.iopub_socket, 'stream',",
                        "    {'name': 'stdout', 'text': 'SIGNED\\n'}, parent=k.get_parent('shell'))",
                        "print('after')"));
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        assertThat(r.stdout()).contains("SIGNED").contains("after").doesNotContain("FORGED");
        assertThat(d.info(shared).getBadSignatures()).isEqualTo(before + 1);
        assertThat(d.metrics.registry().counter("sandboxd.code.bad.signatures").count())
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void anUnknownLanguageIsNotFoundListingTheKernels() {
        assertThatThrownBy(() -> d.blocking()
                        .createContext(CreateContextRequest.newBuilder()
                                .setLanguage("cobol")
                                .build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
                    assertThat(e.getStatus().getDescription()).contains("cobol").contains("python3 (python)");
                });
        assertThatThrownBy(() -> d.blocking()
                        .createContext(CreateContextRequest.newBuilder()
                                .setKernel("../etc")
                                .build()))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> d.blocking()
                        .createContext(CreateContextRequest.newBuilder()
                                .setCwd("../outside")
                                .build()))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
        assertThatThrownBy(() -> d.run("ctx-nope", "1"))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }

    @Test
    void listShowsTheKernel() throws Exception {
        ContextInfo info = d.info(shared);
        assertThat(info.getLanguage()).isEqualTo("python");
        assertThat(info.getKernel()).isEqualTo("python3");
        assertThat(info.getKernelPid()).isPositive();
        assertThat(info.getKernelRssBytes()).isGreaterThan(10L << 20);
        assertThat(info.getCreatedUnixMillis()).isPositive().isLessThanOrEqualTo(info.getLastUsedUnixMillis());
        // the kernel leads its own process group, like every process of the daemon
        String stat = Files.readString(Path.of("/proc", Long.toString(info.getKernelPid()), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        assertThat(Long.parseLong(f[2])).as("pgrp").isEqualTo(info.getKernelPid());
        // the connection file is private
        try (var s = Files.walk(d.state)) {
            List<Path> files =
                    s.filter(p -> p.getFileName().toString().endsWith(".json")).toList();
            assertThat(files).isNotEmpty();
            for (Path p : files) {
                assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(p)))
                        .isEqualTo("rw-------");
            }
        }
    }
}
