package io.sandboxd.daemon.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.SandboxRoot;
import io.sandboxd.daemon.process.journal.JournalStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tag is free again by the time its process's exit record can be seen (a Wait returns). */
class DurableTagTest {
    @TempDir
    Path tmp;

    ProcessCore core;
    DurableProcesses durable;

    @BeforeEach
    void setUp() throws Exception {
        core = new ProcessCore(
                new CommandResolver(
                        new SandboxRoot(
                                Files.createDirectories(tmp.resolve("root")).toRealPath()),
                        System.getenv()),
                new ProcessRegistry(64),
                new ProcessRuntime(32 * 1024, new SimpleMeterRegistry()));
        durable = core.enableDurable(
                new JournalStore(Files.createDirectories(tmp.resolve("state")), 1L << 30),
                new DurableProcesses.Settings(1 << 20, 1 << 20, 1000, 60_000, 10));
    }

    @AfterEach
    void tearDown() {
        core.terminateAll(TimeUnit.SECONDS.toNanos(1), System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        core.close();
    }

    private DurableProcess start(String... argv) throws SandboxException {
        return durable.start(new ProcessRequest(List.of(argv), Map.of(), null, null), "relay", true, 0, 0);
    }

    @Test
    void theTagIsFreeWhenTheExitRecordBecomesVisible() throws Exception {
        DurableProcess first = start("sleep", "0.3");
        // Runs the moment the record is final, on the thread that made it so: what a Wait then
        // does next (a Start with the same tag) must not find the tag still held. It once did:
        // the tag went after the record, and conformance DUR-TAG-001 caught the gap in CI.
        CompletableFuture<Object> next = first.exit().thenApply(x -> {
            try {
                return start("true");
            } catch (SandboxException e) {
                return e;
            }
        });
        assertThat(next.get(30, TimeUnit.SECONDS)).isInstanceOfSatisfying(DurableProcess.class, again -> {
            assertThat(again.id()).isNotEqualTo(first.id());
            assertThat(again.tag()).isEqualTo("relay");
        });
    }
}
