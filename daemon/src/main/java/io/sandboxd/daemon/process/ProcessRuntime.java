package io.sandboxd.daemon.process;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.micrometer.core.instrument.MeterRegistry;
import io.sandboxd.daemon.process.os.ChildCredentials;
import io.sandboxd.daemon.process.os.IoLoop;
import io.sandboxd.daemon.process.os.IoThreads;
import io.sandboxd.daemon.process.os.PosixSpawn;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What every process of the core is given to run on: the one I/O loop that reads all output and
 * sees every exit, the shared threads (blocking stdin writes, grace timers), the output chunk
 * size, the budgets that bound what large chunks and grown pipes may take across all processes,
 * and the process meters. Processes share all of it; none owns any of it.
 */
public final class ProcessRuntime implements AutoCloseable {
    /** Memory that chunks above 32 KiB may pin at once, across every stream (see LargeChunkBudget). */
    static final long LARGE_CHUNK_BUDGET_BYTES = 16L * 1024 * 1024;
    /** Hot pipes enlarged at once: 64 x 256 KiB is a quarter of the default per-user pipe quota. */
    static final int MAX_GROWN_PIPES = 64;

    /** The native side, created together at the first spawn. */
    private record Loop(IoLoop io, OutputBuffers buffers, Memory spawnAttributes) {}

    private final int chunkSize;
    private final ChildCredentials credentials;
    private final ProcessMetrics metrics;
    private final IoThreads threads = new IoThreads();
    private final LargeChunkBudget chunkBudget = new LargeChunkBudget(LARGE_CHUNK_BUDGET_BYTES);
    private final PipeGrowth pipeGrowth = new PipeGrowth(MAX_GROWN_PIPES);
    private final StdinBudget stdinBudget = new StdinBudget();
    /** Created at the first spawn, so a daemon that runs no process never loads JNA. */
    private volatile Loop loop;

    /** @param chunkSize the largest output chunk ({@code --stream-chunk-size}) */
    public ProcessRuntime(int chunkSize, MeterRegistry registry) {
        this(chunkSize, ChildCredentials.INHERIT, registry);
    }

    /** @param credentials who the processes run as ({@code --run-as-user}) */
    public ProcessRuntime(int chunkSize, ChildCredentials credentials, MeterRegistry registry) {
        this.chunkSize = chunkSize;
        this.credentials = credentials;
        this.metrics = new ProcessMetrics(registry);
    }

    ChildCredentials credentials() {
        return credentials;
    }

    private Loop started() {
        Loop l = loop;
        if (l == null) {
            synchronized (this) {
                l = loop;
                if (l == null) {
                    Memory attributes = PosixSpawn.attributes();
                    OutputBuffers buffers = new OutputBuffers(chunkSize);
                    l = new Loop(new IoLoop(), buffers, attributes);
                    loop = l;
                }
            }
        }
        return l;
    }

    IoLoop loop() {
        return started().io();
    }

    /** Loop thread only. */
    OutputBuffers outputBuffers() {
        return started().buffers();
    }

    /** What every pipe-mode child is spawned with (see {@link PosixSpawn#attributes()}). */
    Pointer spawnAttributes() {
        return started().spawnAttributes();
    }

    /** Blocking work: stdin writes, and exit waits where pidfds are refused. */
    Executor blocking() {
        return threads.blocking;
    }

    ScheduledExecutorService timers() {
        return threads.timers;
    }

    ProcessMetrics metrics() {
        return metrics;
    }

    int chunkSize() {
        return chunkSize;
    }

    LargeChunkBudget chunkBudget() {
        return chunkBudget;
    }

    StdinBudget stdinBudget() {
        return stdinBudget;
    }

    PipeGrowth pipeGrowth() {
        return pipeGrowth;
    }

    /** Stops the threads and the loop; after the processes ended. */
    @Override
    public void close() {
        threads.shutdown();
        Loop l = loop;
        if (l != null) {
            l.io().close();
        }
    }
}
