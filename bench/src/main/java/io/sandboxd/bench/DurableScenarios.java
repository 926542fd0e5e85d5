package io.sandboxd.bench;

import com.google.protobuf.ByteString;
import io.sandboxd.api.durable.v1alpha1.StartRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.client.Command;
import io.sandboxd.client.DurableAttachment;
import io.sandboxd.client.DurableOptions;
import io.sandboxd.client.DurableProcesses;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartListener;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcessObserver;
import io.sandboxd.testkit.proc.ResourceSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The client side of each durable-process figure and of its same-run baseline. */
final class DurableScenarios {
    /** Prints a wall-clock stamp in ns every 10 ms: the writer of the live-latency figures. */
    static final Command STAMPS = Command.of("sh", "-c", "while :; do date +%s%N; sleep 0.01; done");

    private static final Duration LONG = Duration.ofMinutes(10);

    private final GrpcBench g;
    private final SandboxdClient c;
    private final long daemonPid;

    DurableScenarios(GrpcBench g, RunningDaemon daemon) {
        this.g = g;
        this.c = g.client().withStreamDeadline(LONG);
        this.daemonPid = daemon.jvmPid();
    }

    /**
     * One throughput run: MB/s as received, and per GiB moved the daemon's CPU seconds (user +
     * system) and young collections, which a busy machine changes far less than the rate.
     */
    record Run(
            double mbPerSecond,
            double daemonCpuPerGib,
            double youngGcsPerGib,
            long bytesPerEvent,
            double clientCpuPerGib) {}

    /** The daemon's CPU time and young-collection count when a run began, and this JVM's CPU time. */
    private final class Meter {
        private final double cpu = cpuSeconds(daemonPid);
        private final long gcs = youngGcs(daemonPid);
        private final double clientCpu = cpuSeconds(ProcessHandle.current().pid());

        Run end(long bytes, double seconds) {
            return end(bytes, seconds, 0);
        }

        Run end(long bytes, double seconds, long events) {
            double gib = bytes / (double) (1L << 30);
            long gcsNow = youngGcs(daemonPid);
            return new Run(
                    bytes / 1e6 / seconds,
                    (cpuSeconds(daemonPid) - cpu) / gib,
                    gcs < 0 || gcsNow < 0 ? Double.NaN : (gcsNow - gcs) / gib,
                    events == 0 ? 0 : bytes / events,
                    (cpuSeconds(ProcessHandle.current().pid()) - clientCpu) / gib);
        }
    }

    /** A plain process.v1 Start of {@code head -c bytes /dev/zero}. */
    Run v1Throughput(long bytes) {
        Meter m = new Meter();
        double rate = g.startThroughput(bytes, 1)[0];
        return m.end(bytes, bytes / 1e6 / rate);
    }

    /** A durable Start of the same, read by its own stream, with this retention per stream. */
    Run durableThroughput(long bytes, long retention) throws InterruptedException {
        Meter m = new Meter();
        DurableClient.Counted r = DurableClient.start(c, zeros(bytes, retention));
        check(r, "durable Start");
        if (r.stdout != bytes || r.gapBytes != 0) {
            throw new IllegalStateException(
                    "durable Start: " + r.stdout + " of " + bytes + " bytes, " + r.gapBytes + " as gaps");
        }
        return m.end(bytes, r.seconds(), r.outputEvents);
    }

    /** utime + stime of a process in seconds (clock ticks of 10 ms, as on every Linux we run on). */
    static double cpuSeconds(long pid) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Young collections of a JVM so far ({@code jstat -gc}, column YGC), or -1 if jstat cannot tell. */
    static long youngGcs(long pid) {
        java.nio.file.Path jstat = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jstat");
        try {
            Process p = new ProcessBuilder(jstat.toString(), "-gc", Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            String[] lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)
                    .trim()
                    .split("\n");
            p.waitFor();
            if (lines.length < 2) {
                return -1;
            }
            List<String> head = List.of(lines[0].trim().split("\\s+"));
            String[] row = lines[1].trim().split("\\s+");
            int i = head.indexOf("YGC");
            return i < 0 || i >= row.length ? -1 : Long.parseLong(row[i]);
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Bytes a full-speed reader of a durable Start gets as gaps with the daemon's default retention. */
    long durableGapBytes(long bytes) throws InterruptedException {
        DurableClient.Counted r = DurableClient.start(c, zeros(bytes, 0));
        check(r, "durable Start (default retention)");
        if (r.stdout != bytes) {
            throw new IllegalStateException("durable Start: offsets end at " + r.stdout + " of " + bytes);
        }
        return r.gapBytes;
    }

    private static StartRequest zeros(long bytes, long retention) {
        return DurableOptions.defaults()
                .retentionBytes(retention)
                .toStartRequest(Command.of("head", "-c", Long.toString(bytes), "/dev/zero"));
    }

    private static void check(DurableClient.Counted r, String what) throws InterruptedException {
        if (!r.await(LONG)) {
            throw new IllegalStateException(what + ": the stream did not end within " + LONG);
        }
        String p = r.problem();
        if (p != null) {
            throw new IllegalStateException(what + ": " + p);
        }
        if (r.exit.getExitCode() != 0) {
            throw new IllegalStateException(what + ": exit " + r.exit);
        }
    }

    /** The id of a process whose journal was written, and the write (rate to its exit, nobody attached). */
    record Written(int id, Run run) {}

    Written writeJournal(long bytes) {
        Meter m = new Meter();
        long t0 = System.nanoTime();
        int id = c.durable()
                .start(
                        Command.of("head", "-c", Long.toString(bytes), "/dev/zero"),
                        DurableOptions.detached().retentionBytes(bytes));
        var exit = c.durable().waitFor(DurableProcesses.byId(id));
        if (exit.getExitCode() != 0 || exit.getStdoutWritten() != bytes) {
            throw new IllegalStateException("journal writer: " + exit);
        }
        return new Written(id, m.end(bytes, (System.nanoTime() - t0) / 1e9));
    }

    /** An Attach from offset 0 of an ended process's journal through its exit record. */
    Run replay(int id, long bytes) throws InterruptedException {
        Meter m = new Meter();
        DurableClient.Counted r = DurableClient.attach(c, id, null, null);
        check(r, "replay");
        if (r.stdout != bytes || r.gapBytes != 0) {
            throw new IllegalStateException("replay: " + r.stdout + " bytes, " + r.gapBytes + " as gaps");
        }
        return m.end(bytes, r.seconds(), r.outputEvents);
    }

    /** Stamp-to-event latencies (ms) seen by an attacher of a detached stamping process. */
    List<Double> durableLatency(int seconds) throws InterruptedException {
        int id = c.durable().start(STAMPS, DurableOptions.detached());
        Stamps stamps = new Stamps();
        DurableAttachment[] stream = new DurableAttachment[1];
        DurableClient.attach(c, id, o -> stamps.take(o.getData()), stream);
        Thread.sleep(seconds * 1000L);
        stream[0].detach();
        kill(id);
        return stamps.skipFirst(5);
    }

    /** The same for a plain process.v1 Start stream. */
    List<Double> v1Latency(int seconds) throws InterruptedException {
        Stamps stamps = new Stamps();
        RemoteProcess p = c.start(STAMPS, new StartListener() {
            @Override
            public void onStdout(ByteString data) {
                stamps.take(data);
            }
        });
        Thread.sleep(seconds * 1000L);
        p.cancel();
        p.awaitEnd(Duration.ofSeconds(30));
        return stamps.skipFirst(5);
    }

    /** Lines of nanosecond wall-clock stamps, split across events anyhow; latency = arrival - stamp. */
    static final class Stamps {
        private final StringBuilder partial = new StringBuilder();
        private final List<Double> ms = new ArrayList<>();

        synchronized void take(ByteString data) {
            Instant now = Instant.now();
            long nowNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
            partial.append(data.toString(StandardCharsets.US_ASCII));
            int nl;
            while ((nl = partial.indexOf("\n")) >= 0) {
                String line = partial.substring(0, nl).trim();
                partial.delete(0, nl + 1);
                if (!line.isEmpty()) {
                    ms.add((nowNanos - Long.parseLong(line)) / 1e6);
                }
            }
        }

        /** Without the first lines (a replay of what was written before the attach, and the JIT's first calls). */
        synchronized List<Double> skipFirst(int n) {
            return ms.size() <= n ? List.of() : new ArrayList<>(ms.subList(n, ms.size()));
        }
    }

    /** A detached process that printed one line and sleeps; returns its id once the line is journalled. */
    int startIdle(String tag) throws InterruptedException {
        int id = c.durable()
                .start(
                        Command.of("sh", "-c", "echo ready; exec sleep 3600"),
                        DurableOptions.detached().tag(tag));
        awaitWritten(id);
        return id;
    }

    private void awaitWritten(int id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (c.durable().get(DurableProcesses.byId(id)).getStdoutWritten() < 6) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("process " + id + " printed nothing within 60 s");
            }
            Thread.sleep(5);
        }
    }

    /** ms from an Attach call to its first output event; the attach is then detached. */
    double attachFirstByte(int id) throws InterruptedException {
        DurableAttachment[] stream = new DurableAttachment[1];
        java.util.concurrent.CountDownLatch first = new java.util.concurrent.CountDownLatch(1);
        DurableClient.Counted r = DurableClient.attach(c, id, t -> first.countDown(), stream);
        if (!first.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("attach: no output within 30 s");
        }
        double ms = r.firstOutputMs();
        stream[0].detach();
        r.await(Duration.ofSeconds(30));
        return ms;
    }

    /** ms of a unary Get of the same process. */
    double getRoundTrip(int id) {
        long t = System.nanoTime();
        c.durable().get(DurableProcesses.byId(id));
        return (System.nanoTime() - t) / 1e6;
    }

    void kill(int id) {
        try {
            c.sendSignal(id, Signal.SIGNAL_SIGKILL);
        } catch (RuntimeException e) {
            // ended already
        }
        c.durable().waitFor(DurableProcesses.byId(id));
    }

    /** What {@code n} idle processes added to the daemon: bytes of RSS and heap, fds, threads. */
    record IdleCost(double rss, double heap, int fds, int threads) {}

    IdleCost idleDetached(ProcessObserver daemon, int n) throws InterruptedException {
        ResourceSnapshot before = settled(daemon);
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(c.durable()
                    .start(Command.of("sh", "-c", "echo ready; exec sleep 3600"), DurableOptions.detached()));
        }
        for (int id : ids) {
            awaitWritten(id);
        }
        ResourceSnapshot during = settled(daemon);
        ids.forEach(this::kill);
        return cost(before, during);
    }

    IdleCost idleV1(ProcessObserver daemon, int n) throws InterruptedException {
        ResourceSnapshot before = settled(daemon);
        List<RemoteProcess> ps = new ArrayList<>();
        List<StartRecorder> rs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StartRecorder r = new StartRecorder();
            rs.add(r);
            ps.add(c.start(Command.of("sh", "-c", "echo ready; exec sleep 3600"), r));
        }
        for (StartRecorder r : rs) {
            if (!r.awaitStdoutContains("ready", Duration.ofSeconds(60))) {
                throw new IllegalStateException("v1 Start printed nothing within 60 s: " + r.describe());
            }
        }
        ResourceSnapshot during = settled(daemon);
        ps.forEach(RemoteProcess::cancel);
        for (RemoteProcess p : ps) {
            p.awaitEnd(Duration.ofSeconds(30));
        }
        return cost(before, during);
    }

    private static IdleCost cost(ResourceSnapshot a, ResourceSnapshot b) {
        return new IdleCost(
                b.rssBytes() - a.rssBytes(),
                b.heapAfterGcBytes().orElse(0) - a.heapAfterGcBytes().orElse(0),
                b.fds() - a.fds(),
                b.threads() - a.threads());
    }

    /** A snapshot after a full GC, 2 s after things went quiet. */
    private static ResourceSnapshot settled(ProcessObserver daemon) throws InterruptedException {
        Thread.sleep(2000);
        return daemon.snapshotWithHeap();
    }
}
