package io.sandboxd.daemon.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Native;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.SandboxRoot;
import io.sandboxd.testkit.Poll;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pipe-mode process core against real processes: posix_spawn, the epoll loop, pidfd exits. */
class PipeProcessTest {
    static final int CHUNK = 256 * 1024;

    @TempDir
    Path tmp;

    ProcessRegistry registry;
    ProcessRuntime runtime;
    ProcessCore core;

    @BeforeEach
    void setUp() throws Exception {
        registry = new ProcessRegistry(1024);
        runtime = new ProcessRuntime(CHUNK, new SimpleMeterRegistry());
        core = new ProcessCore(
                new CommandResolver(new SandboxRoot(tmp.toRealPath()), System.getenv()), registry, runtime);
    }

    @AfterEach
    void tearDown() {
        core.terminateAll(TimeUnit.SECONDS.toNanos(1), System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        core.close();
    }

    static ProcessRequest cmd(String... argv) {
        return new ProcessRequest(List.of(argv), Map.of(), null, null);
    }

    ExecuteResult execute(String... argv) throws Exception {
        return core.execute(cmd(argv), 1 << 20).result().get(30, TimeUnit.SECONDS);
    }

    @Test
    void everyByteArrivesInOrderInBoundedChunksBeforeTheExit() throws Exception {
        // 6 MiB through one pipe: long enough to go hot (pipe growth, large chunks).
        Recorder r = new Recorder(true);
        ManagedProcess p = core.start(cmd("/bin/sh", "-c", "seq 1 800000; echo done >&2; exit 3"));
        p.pump(r);
        assertThat(p.finished().get(60, TimeUnit.SECONDS)).isEqualTo(3);
        StringBuilder expected = new StringBuilder();
        for (int i = 1; i <= 800000; i++) {
            expected.append(i).append('\n');
        }
        assertThat(r.stdout.toString(StandardCharsets.US_ASCII)).isEqualTo(expected.toString());
        assertThat(r.stderr.toString(StandardCharsets.US_ASCII)).isEqualTo("done\n");
        assertThat(r.maxChunk).isLessThanOrEqualTo(CHUNK);
        assertThat(r.exitAfterOutput).isTrue();
        assertThat(runtime.chunkBudget().available()).isEqualTo(ProcessRuntime.LARGE_CHUNK_BUDGET_BYTES);
        assertThat(runtime.pipeGrowth().grownNow()).isZero();
    }

    @Test
    void aLoneWriteIsDeliveredWhileTheProcessStillRuns() throws Exception {
        Recorder r = new Recorder(true);
        ManagedProcess p = core.start(cmd("/bin/sh", "-c", "echo hi; sleep 5"));
        p.pump(r);
        Poll.until(Duration.ofSeconds(3), () -> r.stdout.size() != 0);
        assertThat(r.stdout.toString(StandardCharsets.US_ASCII)).isEqualTo("hi\n");
        assertThat(p.finished()).isNotDone();
        p.killTree();
        assertThat(p.finished().get(10, TimeUnit.SECONDS)).isEqualTo(137);
    }

    @Test
    void stalledConsumersPinAtMostTheSharedBudgetAndReturnItAll() throws Exception {
        List<ManagedProcess> ps = new ArrayList<>();
        List<Recorder> rs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Recorder r = new Recorder(false); // takes one chunk, then never has demand again
            ManagedProcess p = core.start(cmd("/usr/bin/yes", "x"));
            p.pump(r);
            ps.add(p);
            rs.add(r);
        }
        Thread.sleep(1500);
        long delivered = rs.stream().mapToLong(r -> r.total.get()).sum();
        // each stream got one chunk: 32 KiB free, anything above from the 16 MiB budget
        assertThat(delivered)
                .isLessThanOrEqualTo(40L * LargeChunkBudget.BASE + ProcessRuntime.LARGE_CHUNK_BUDGET_BYTES);
        assertThat(rs).allSatisfy(r -> assertThat(r.chunks.get()).isEqualTo(1));
        Thread.sleep(500);
        assertThat(rs.stream().mapToLong(r -> r.total.get()).sum()).isEqualTo(delivered); // nothing more read
        for (ManagedProcess p : ps) {
            p.killTree();
        }
        rs.forEach(Recorder::cancel); // a stalled consumer holds the exit back until it reads or leaves
        for (ManagedProcess p : ps) {
            p.finished().get(30, TimeUnit.SECONDS);
        }
        assertThat(runtime.chunkBudget().available()).isEqualTo(ProcessRuntime.LARGE_CHUNK_BUDGET_BYTES);
    }

    @Test
    void aStalledConsumerStopsTheWriter() throws Exception {
        Recorder r = new Recorder(false);
        ManagedProcess p = core.start(cmd("/usr/bin/head", "-c", "100000000", "/dev/zero"));
        p.pump(r);
        Thread.sleep(1500);
        assertThat(r.total.get()).isLessThanOrEqualTo(CHUNK);
        // blocked in write(2) on the full pipe, not exited: nothing was read past the one chunk
        assertThat(p.finished()).isNotDone();
        assertThat(Files.readString(Path.of("/proc/" + p.pid() + "/wchan"))).contains("pipe");
        p.killTree();
        r.cancel();
        assertThat(p.finished().get(10, TimeUnit.SECONDS)).isEqualTo(137);
    }

    @Test
    void largeAndNonAsciiArgumentsAndEnvironmentArriveIntact() throws Exception {
        String big = "x".repeat(5000);
        String[] argv = new String[102];
        argv[0] = "/bin/echo";
        for (int i = 1; i < argv.length; i++) {
            argv[i] = i == 1 ? "grüße-✓" : big;
        }
        ExecuteResult r = core.execute(new ProcessRequest(List.of(argv), Map.of("BIG", big), null, null), 1 << 20)
                .result()
                .get(30, TimeUnit.SECONDS);
        String expected = "grüße-✓" + (" " + big).repeat(100) + "\n";
        assertThat(new String(r.stdout(), StandardCharsets.UTF_8)).isEqualTo(expected);
        // the next spawn on the same thread reuses a fresh scratch block correctly
        ExecuteResult env = core.execute(
                        new ProcessRequest(
                                List.of("/bin/sh", "-c", "printf %s \"$V\""), Map.of("V", "ünï"), null, null),
                        100)
                .result()
                .get(30, TimeUnit.SECONDS);
        assertThat(new String(env.stdout(), StandardCharsets.UTF_8)).isEqualTo("ünï");
    }

    @Test
    void childrenInheritOnlyStdio() throws Exception {
        // ls opens the directory it lists as fd 3; nothing else may be open
        ExecuteResult r = execute("/bin/ls", "/proc/self/fd");
        assertThat(new String(r.stdout(), StandardCharsets.US_ASCII).split("\n"))
                .containsExactlyInAnyOrder("0", "1", "2", "3");
    }

    @Test
    void childrenRunInTheirOwnSessionWithDefaultSignalsAndAnEmptyMask() throws Exception {
        long previous = LibcSignal.C.signal(LibcSignal.SIGHUP, LibcSignal.SIG_IGN);
        try {
            ExecuteResult r =
                    execute("/bin/sh", "-c", "grep -E '^Sig(Ign|Blk)' /proc/self/status; ps -o sid=,pgid=,pid= -p $$");
            String out = new String(r.stdout(), StandardCharsets.US_ASCII);
            assertThat(out).contains("SigBlk:\t0000000000000000");
            // glibc's posix_spawn leaves its own internal signals 32 and 33 ignored (no program can
            // use them); every standard signal must be back to default, SIGHUP included.
            long ign = Long.parseUnsignedLong(
                    out.lines()
                            .filter(l -> l.startsWith("SigIgn:"))
                            .findFirst()
                            .orElseThrow()
                            .substring("SigIgn:".length())
                            .trim(),
                    16);
            assertThat(ign & 0x7fffffffL).isZero();
            String[] ids = out.lines()
                    .filter(l -> !l.startsWith("Sig"))
                    .findFirst()
                    .orElseThrow()
                    .trim()
                    .split("\\s+");
            assertThat(ids[0]).isEqualTo(ids[2]);
            assertThat(ids[1]).isEqualTo(ids[2]);
        } finally {
            LibcSignal.C.signal(LibcSignal.SIGHUP, previous);
        }
    }

    @Test
    void execErrorsComeBackAsStatusesNotExitCodes() throws Exception {
        Path script = tmp.resolve("noshebang");
        Files.writeString(script, "echo hi\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> core.execute(cmd(script.toString()), 100))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL);
                    assertThat(e.getMessage()).contains("exec format error");
                });
        assertThat(registry.liveCount()).isZero();
    }

    @Test
    void stdinReachesTheProcessAndEofEndsIt() throws Exception {
        Recorder r = new Recorder(true);
        ManagedProcess p = core.start(cmd("/bin/cat"));
        p.pump(r);
        byte[] big = new byte[300_000];
        java.util.Arrays.fill(big, (byte) 'z');
        p.writeStdin("hello ".getBytes(StandardCharsets.US_ASCII)).get(10, TimeUnit.SECONDS);
        p.writeStdin(big).get(10, TimeUnit.SECONDS);
        p.closeStdin().get(10, TimeUnit.SECONDS);
        assertThat(p.finished().get(10, TimeUnit.SECONDS)).isZero();
        assertThat(r.stdout.size()).isEqualTo(6 + big.length);
    }

    @Test
    void manyShortProcessesLeaveNoDescriptorsBehind() throws Exception {
        execute("/bin/true"); // loop, pools and libraries are up
        long before = openFds();
        List<CompletableFuture<ExecuteResult>> all = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            all.add(core.execute(cmd("/bin/echo", Integer.toString(i)), 100).result());
        }
        for (int i = 0; i < all.size(); i++) {
            assertThat(new String(all.get(i).get(30, TimeUnit.SECONDS).stdout(), StandardCharsets.US_ASCII))
                    .isEqualTo(i + "\n");
        }
        assertThat(openFds()).isLessThanOrEqualTo(before + 2);
        // A result can complete a moment before its process leaves the registry (the end listener
        // runs after the exit is delivered): a leaked entry stays, a late one goes.
        Poll.until(Duration.ofSeconds(5), () -> registry.liveCount() == 0);
        assertThat(registry.liveCount()).isZero();
    }

    private static long openFds() throws Exception {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    /** A sink that records output; without demand after its first chunk when {@code demand} is false. */
    static final class Recorder implements OutputSink {
        final boolean demand;
        final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        final AtomicLong total = new AtomicLong();
        final AtomicLong chunks = new AtomicLong();
        final ConcurrentLinkedQueue<Runnable> waiting = new ConcurrentLinkedQueue<>();
        volatile int maxChunk;
        volatile boolean exited;
        volatile boolean exitAfterOutput = true;

        Recorder(boolean demand) {
            this.demand = demand;
        }

        @Override
        public boolean hasDemand() {
            return demand || chunks.get() == 0;
        }

        volatile boolean cancelled;

        /** The consumer leaves (as a cancelled RPC does): waiting sources resume and discard. */
        void cancel() {
            cancelled = true;
            Runnable r;
            while ((r = waiting.poll()) != null) {
                r.run();
            }
        }

        @Override
        public boolean isClosed() {
            return cancelled;
        }

        @Override
        public void onDemand(Runnable callback) {
            if (hasDemand() || cancelled) {
                callback.run();
            } else {
                waiting.add(callback);
                if (cancelled && waiting.remove(callback)) {
                    callback.run();
                }
            }
        }

        @Override
        public synchronized void onOutput(OutputKind kind, byte[] data, int length) {
            if (exited) {
                exitAfterOutput = false;
            }
            (kind == OutputKind.STDOUT ? stdout : stderr).write(data, 0, length);
            total.addAndGet(length);
            chunks.incrementAndGet();
            maxChunk = Math.max(maxChunk, length);
        }

        @Override
        public synchronized void onExit(int exitCode) {
            exited = true;
        }
    }

    /** signal(2) for the test JVM itself, to start children from a daemon that ignores a signal. */
    static final class LibcSignal {
        static final int SIGHUP = 1;
        static final long SIG_IGN = 1;

        interface Lib extends com.sun.jna.Library {
            /** @return the previous handler */
            long signal(int sig, long handler);
        }

        static final Lib C = Native.load("c", Lib.class);
    }
}
