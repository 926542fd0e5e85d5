package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.api.code.v1alpha1.ContextState;
import io.sandboxd.api.code.v1alpha1.DeleteRequest;
import io.sandboxd.api.code.v1alpha1.ExecuteEvent;
import io.sandboxd.api.code.v1alpha1.ExecutionState;
import io.sandboxd.api.code.v1alpha1.InterruptRequest;
import io.sandboxd.daemon.code.CodeSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits of code contexts with small values and real kernels: output per execution (head +
 * tail), message size, number of contexts, heartbeat, idle reaping (last: it waits for the reaper,
 * which a short --code-idle-timeout keeps to a few seconds).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CodeLimitsTest {
    static final long OUTPUT_LIMIT = 64 * 1024;
    static final long MAX_MESSAGE = 256 * 1024;
    static final Duration IDLE = Duration.ofSeconds(4);

    @TempDir
    static Path tmp;

    static CodeDaemon d;
    static String ctx;
    /** When ctx was last used, for the reaper test. */
    static long ctxLastUsed;

    @BeforeAll
    static void up() throws Exception {
        d = new CodeDaemon(
                tmp,
                new CodeSettings(2, OUTPUT_LIMIT, MAX_MESSAGE, IDLE, Duration.ofSeconds(90), Duration.ofSeconds(2)));
        ctx = d.create();
    }

    @AfterAll
    static void down() throws Exception {
        d.close();
    }

    @Test
    @Order(1)
    void anOutputFloodKeepsHeadAndTailAndSaysWhatWasDropped() {
        // Flushed every 10,000 lines (~70 KB per stream message): left alone, ipykernel batches what
        // was printed in its 0.2 s flush interval into one message, which on a loaded machine grew
        // past MAX_MESSAGE and was dropped whole as oversized (a different limit, tested below).
        CodeDaemon.Run r = d.run(
                ctx, "import sys\nfor i in range(300000):\n    print(i)\n    if i % 10000 == 9999: sys.stdout.flush()");
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        assertThat(r.status().getOversizedMessages()).isZero();
        String out = r.stdout();
        long bytes = r.outputs().stream()
                .filter(ExecuteEvent::hasStream)
                .mapToLong(e -> e.getStream().getText().length())
                .sum();
        assertThat(bytes).isLessThanOrEqualTo(OUTPUT_LIMIT);
        assertThat(out).startsWith("0\n1\n2\n").endsWith("299998\n299999\n");
        ExecuteEvent t = r.outputs().stream()
                .filter(ExecuteEvent::hasTruncated)
                .findFirst()
                .orElseThrow();
        long total = 0;
        for (int i = 0; i < 300000; i++) {
            total += Integer.toString(i).length() + 1;
        }
        assertThat(t.getTruncated().getDroppedBytes()).isEqualTo(total - bytes);
        assertThat(d.run(ctx, "print('still here')").stdout()).isEqualTo("still here\n");
    }

    @Test
    @Order(2)
    void aMessageOverTheSizeLimitIsDroppedAndReported() {
        CodeDaemon.Run r = d.run(ctx, "from IPython.display import HTML, display\ndisplay(HTML('x' * 400000))");
        assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_OK);
        assertThat(r.status().getOversizedMessages()).isPositive();
        assertThat(r.status().getMessage()).contains("--code-max-message-size");
        assertThat(r.outputs()).noneMatch(ExecuteEvent::hasRich);
        assertThat(d.run(ctx, "print('still here')").stdout()).isEqualTo("still here\n");
    }

    @Test
    @Order(3)
    void moreContextsThanTheLimitAreRefused() throws Exception {
        // busy, so the reaper leaves it alone however long the second kernel takes to start
        CodeDaemon.Pending busy = d.start(ctx, "import time\nprint('busy', flush=True)\ntime.sleep(600)");
        assertThat(busy.output.await(60, TimeUnit.SECONDS)).isTrue();
        String second = d.create();
        try {
            assertThatThrownBy(d::create).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                assertThat(e.getStatus().getDescription()).contains("--code-max-contexts");
            });
        } finally {
            d.blocking().delete(DeleteRequest.newBuilder().setContextId(second).build());
            d.blocking()
                    .interrupt(InterruptRequest.newBuilder().setContextId(ctx).build());
        }
        assertThat(busy.await(30).status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_ERROR);
        ctxLastUsed = d.info(ctx).getLastUsedUnixMillis();
    }

    @Test
    @Order(4)
    void aHungKernelIsDetectedByItsHeartbeat() {
        String hung = d.create();
        try {
            long t0 = System.nanoTime();
            CodeDaemon.Run r = d.run(hung, "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)");
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(r.status().getState()).isEqualTo(ExecutionState.EXECUTION_STATE_KERNEL_DIED);
            assertThat(r.status().getMessage()).contains("heartbeat");
            assertThat(millis).as("heartbeat timeout 2 s, checked every second").isLessThan(10_000);
            assertThat(d.info(hung).getState()).isEqualTo(ContextState.CONTEXT_STATE_DEAD);
        } finally {
            d.blocking().delete(DeleteRequest.newBuilder().setContextId(hung).build());
        }
    }

    @Test
    @Order(5)
    void anIdleContextIsReaped() throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (d.info(ctx) != null && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(d.info(ctx)).as("reaped after --code-idle-timeout").isNull();
        assertThat(System.currentTimeMillis() - ctxLastUsed)
                .as("not before --code-idle-timeout")
                .isGreaterThanOrEqualTo(IDLE.toMillis());
    }
}
