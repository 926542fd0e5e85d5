package io.sandboxd.daemon.process.os;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sandboxd.daemon.fs.SandboxRoot;
import io.sandboxd.daemon.process.CommandResolver;
import io.sandboxd.daemon.process.ExecuteResult;
import io.sandboxd.daemon.process.ProcessCore;
import io.sandboxd.daemon.process.ProcessRegistry;
import io.sandboxd.daemon.process.ProcessRequest;
import io.sandboxd.daemon.process.ProcessRuntime;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exits of pipe-mode children through a pidfd on the loop, and through the waitpid fallback. */
class ExitWatcherTest {
    @TempDir
    Path tmp;

    ProcessCore core;

    @BeforeEach
    void setUp() throws Exception {
        core = new ProcessCore(
                new CommandResolver(new SandboxRoot(tmp.toRealPath()), System.getenv()),
                new ProcessRegistry(1024),
                new ProcessRuntime(256 * 1024, new SimpleMeterRegistry()));
    }

    @AfterEach
    void tearDown() {
        ExitWatcher.usePidfd(true);
        core.terminateAll(TimeUnit.SECONDS.toNanos(1), System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        core.close();
    }

    ExecuteResult execute(String... argv) throws Exception {
        return core.execute(new ProcessRequest(List.of(argv), Map.of(), null, null), 1 << 20)
                .result()
                .get(30, TimeUnit.SECONDS);
    }

    @Test
    void exitCodesAndSignalsWithTheWaitpidFallback() throws Exception {
        ExitWatcher.usePidfd(false);
        assertThat(execute("/bin/sh", "-c", "exit 7").exitCode()).isEqualTo(7);
        assertThat(execute("/bin/sh", "-c", "kill -TERM $$").exitCode()).isEqualTo(143);
        ExitWatcher.usePidfd(true);
        assertThat(execute("/bin/sh", "-c", "exit 9").exitCode()).isEqualTo(9);
        assertThat(execute("/bin/sh", "-c", "kill -KILL $$").exitCode()).isEqualTo(137);
    }
}
