package io.sandboxd.bench;

import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessState;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.client.Command;
import io.sandboxd.client.DurableOptions;
import io.sandboxd.client.DurableProcesses;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcessObserver;
import io.sandboxd.testkit.proc.ResourceSnapshot;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Many detached processes printing at full speed with nobody attached: the daemon's heap after GC
 * and RSS must stay flat, the journal within {@code --journal-total-cap}, every process running
 * and the daemon answering. Sampled every 5 s after a warm-up.
 */
final class DurableSoak {
    private static final double HEAP_TOLERANCE_MIB = 8;
    private static final double RSS_TOLERANCE_MIB = 32;

    private final SandboxdClient c;
    private final RunningDaemon daemon;
    private final Path stateDir;
    private final boolean ownFilesystem;
    private final PrintStream out;

    /**
     * @param ownFilesystem the state directory is a filesystem of its own (a tmpfs the bench
     *     mounted): its used bytes are the journal, read as one consistent statfs snapshot
     */
    DurableSoak(SandboxdClient c, RunningDaemon daemon, Path stateDir, boolean ownFilesystem, PrintStream out) {
        this.c = c;
        this.daemon = daemon;
        this.stateDir = stateDir;
        this.ownFilesystem = ownFilesystem;
        this.out = out;
    }

    record Result(
            double heapGrowthMib,
            double rssGrowthMib,
            double journalMaxMib,
            double writtenMbPerSecond,
            double getP50Ms,
            ResourceSnapshot base,
            ResourceSnapshot end,
            List<String> problems) {
        String describe() {
            return String.format(
                    Locale.ROOT,
                    "processes wrote %.0f MB/s in all; Get p50 %.2f ms during the soak; base %s; end %s",
                    writtenMbPerSecond,
                    getP50Ms,
                    base.describe(),
                    end.describe());
        }
    }

    Result run(int processes, Duration duration, long cap) throws Exception {
        ProcessObserver jvm = new ProcessObserver(daemon.jvmPid());
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            ids.add(c.durable().start(Command.of("yes", "durable soak line " + i), DurableOptions.detached()));
        }
        List<String> problems = new ArrayList<>();
        try {
            Duration warmup = Duration.ofMillis(Math.min(10_000, duration.toMillis() / 6));
            Thread.sleep(warmup.toMillis());
            ResourceSnapshot base = jvm.snapshotWithHeap();
            long written0 = written(ids);
            long t0 = System.nanoTime();
            long journalMax = 0;
            List<Double> gets = new ArrayList<>();
            long end = t0 + duration.toNanos();
            while (System.nanoTime() < end) {
                Thread.sleep(Math.min(5000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
                long j = journalBytes();
                journalMax = Math.max(journalMax, j);
                long g = System.nanoTime();
                c.durable().get(DurableProcesses.byId(ids.get(0)));
                gets.add((System.nanoTime() - g) / 1e6);
                out.printf(
                        Locale.ROOT,
                        "  soak %3.0f s: journal %.1f MiB, daemon RSS %.1f MiB, threads %d, fds %d, load %s%n",
                        (System.nanoTime() - t0) / 1e9,
                        j / 1048576.0,
                        jvm.rssBytes() / 1048576.0,
                        jvm.threads(),
                        jvm.fds(),
                        DurableBench.Load.now());
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long written = written(ids) - written0;
            ResourceSnapshot last = jvm.snapshotWithHeap();
            for (ProcessInfo p : c.durable().list(false)) {
                ids.remove((Integer) p.getProcessId());
                if (p.getState() != ProcessState.PROCESS_STATE_RUNNING) {
                    problems.add("process " + p.getProcessId() + " is " + p.getState());
                }
            }
            if (!ids.isEmpty()) {
                problems.add("processes no longer running: " + ids);
            }
            double heapGrowth =
                    (last.heapAfterGcBytes().orElse(0) - base.heapAfterGcBytes().orElse(0)) / 1048576.0;
            double rssGrowth = (last.rssBytes() - base.rssBytes()) / 1048576.0;
            if (base.heapAfterGcBytes().isEmpty()) {
                problems.add("the daemon's heap could not be measured (jcmd)");
            } else if (heapGrowth
                    > Math.max(HEAP_TOLERANCE_MIB, base.heapAfterGcBytes().getAsLong() / 5 / 1048576.0)) {
                problems.add(String.format(Locale.ROOT, "heap after GC grew %.1f MiB", heapGrowth));
            }
            if (rssGrowth > Math.max(RSS_TOLERANCE_MIB, base.rssBytes() / 4 / 1048576.0)) {
                problems.add(String.format(Locale.ROOT, "RSS grew %.1f MiB", rssGrowth));
            }
            if (journalMax > allowed(cap, processes)) {
                problems.add("the journal held " + journalMax + " bytes, over the cap of " + cap
                        + " plus one append and a page per stream (" + allowed(cap, processes) + ")");
            }
            double[] g = gets.stream().mapToDouble(Double::doubleValue).toArray();
            return new Result(
                    heapGrowth,
                    rssGrowth,
                    journalMax / 1048576.0,
                    written / 1e6 / seconds,
                    g.length == 0 ? Double.NaN : Stats.of(g).p50(),
                    base,
                    last,
                    problems);
        } finally {
            for (ProcessInfo p : c.durable().list(false)) {
                try {
                    c.sendSignal(p.getProcessId(), Signal.SIGNAL_SIGKILL);
                } catch (RuntimeException e) {
                    // ended meanwhile
                }
            }
        }
    }

    /**
     * What the journal may occupy: the cap, plus one append (at most 256 KiB) that is on disk
     * before the cap evicts the oldest segment, plus each stream's current segment rounded up to
     * a 4 KiB page by the filesystem.
     */
    static long allowed(long cap, int processes) {
        return cap + (256 << 10) + processes * 2L * 4096;
    }

    private long written(List<Integer> ids) {
        long sum = 0;
        for (ProcessInfo p : c.durable().list(true)) {
            if (ids.contains(p.getProcessId())) {
                sum += p.getStdoutWritten() + p.getStderrWritten();
            }
        }
        return sum;
    }

    /**
     * Bytes in the journal right now. On a filesystem of its own, statfs's used bytes: one
     * snapshot. Elsewhere the sum of its files' sizes, which overcounts by up to what the
     * processes write while the walk runs (a file counted early may be evicted before a later one
     * is counted grown), so a figure a little above the cap there is not proof of a breach.
     */
    private long journalBytes() throws IOException {
        if (ownFilesystem) {
            var store = Files.getFileStore(stateDir);
            return store.getTotalSpace() - store.getUnallocatedSpace();
        }
        return walkedBytes();
    }

    private long walkedBytes() throws IOException {
        try (Stream<Path> s = Files.walk(stateDir)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(p -> {
                        try {
                            return Files.size(p);
                        } catch (IOException e) {
                            return 0; // removed meanwhile
                        }
                    })
                    .sum();
        } catch (java.io.UncheckedIOException e) {
            return walkedBytes(); // a directory went while walking: look again
        }
    }
}
