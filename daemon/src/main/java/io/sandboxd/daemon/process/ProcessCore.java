package io.sandboxd.daemon.process;

import io.micrometer.core.instrument.MeterRegistry;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.SandboxRoot;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The process core: spawns processes in their own sessions, keeps the registry of live ones
 * (ids, the {@code --max-processes} cap) and ends them all at shutdown. Knows nothing about
 * any transport.
 */
public final class ProcessCore implements AutoCloseable {
    private final CommandResolver resolver;
    private final int maxProcesses;
    private final int chunkSize;
    private final ProcessMetrics metrics;
    private final IoThreads io = new IoThreads();
    /** Memory that chunks above 32 KiB may pin at once, across every stream (see LargeChunkBudget). */
    static final long LARGE_CHUNK_BUDGET_BYTES = 16L * 1024 * 1024;
    /** Hot pipes enlarged at once: 64 x 256 KiB is a quarter of the default per-user pipe quota. */
    static final int MAX_GROWN_PIPES = 64;
    private final LargeChunkBudget chunkBudget = new LargeChunkBudget(LARGE_CHUNK_BUDGET_BYTES);
    private final PipeGrowth pipeGrowth = new PipeGrowth(MAX_GROWN_PIPES);
    /** Created at the first pipe-mode spawn, so a daemon that runs no process never loads JNA. */
    private volatile IoLoop loop;
    private volatile com.sun.jna.Memory spawnAttributes;
    private final AtomicInteger nextId = new AtomicInteger();
    private final AtomicInteger live = new AtomicInteger();
    private final Map<Integer, ManagedProcess> addressable = new ConcurrentHashMap<>();
    private final Set<ManagedProcess> all = ConcurrentHashMap.newKeySet();
    /** Sessions we created that may still have members (pruned against /proc as it grows). */
    private final Set<Long> sessions = ConcurrentHashMap.newKeySet();
    private static final int SESSION_PRUNE_THRESHOLD = 4096;
    private final java.util.concurrent.atomic.AtomicBoolean pruning = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean closed;

    public ProcessCore(SandboxRoot root, Map<String, String> daemonEnv, int maxProcesses, int chunkSize,
                       MeterRegistry registry) {
        this.resolver = new CommandResolver(root, daemonEnv);
        this.maxProcesses = maxProcesses;
        this.chunkSize = chunkSize;
        this.metrics = new ProcessMetrics(registry);
    }

    IoThreads io() {
        return io;
    }

    IoLoop loop() {
        IoLoop l = loop;
        if (l == null) {
            synchronized (this) {
                l = loop;
                if (l == null) {
                    spawnAttributes = PosixSpawn.attributes();
                    l = new IoLoop(chunkSize);
                    loop = l;
                }
            }
        }
        return l;
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

    PipeGrowth pipeGrowth() {
        return pipeGrowth;
    }

    /** Start: a registered process with stdin, addressable by its id until its output ends. */
    public ManagedProcess start(ProcessRequest request) throws SandboxException {
        LaunchPlan plan = resolver.resolve(request);
        reserve();
        int id = nextId.incrementAndGet();
        try {
            ManagedProcess p = spawn(id, "start", plan, true);
            addressable.put(id, p);
            return p;
        } catch (SandboxException | RuntimeException e) {
            unreserve();
            throw e;
        }
    }

    /** Execute: runs to completion with stdin from /dev/null, keeping at most {@code limit} bytes per stream. */
    public Execution execute(ProcessRequest request, int outputLimit) throws SandboxException {
        if (request.terminal() != null) {
            throw new IllegalArgumentException("Execute has no terminal");
        }
        LaunchPlan plan = resolver.resolve(request);
        reserve();
        ManagedProcess p;
        try {
            p = spawn(0, "execute", plan, false);
        } catch (SandboxException | RuntimeException e) {
            unreserve();
            throw e;
        }
        CapturingSink sink = new CapturingSink(outputLimit);
        p.pump(sink);
        return new Execution(p, sink.result);
    }

    /** @throws SandboxException NOT_FOUND unless a Start process with this id is still streaming */
    public ManagedProcess find(int id) throws SandboxException {
        ManagedProcess p = addressable.get(id);
        if (p == null) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "process " + id + " not found");
        }
        return p;
    }

    public int liveCount() {
        return live.get();
    }

    private void reserve() throws SandboxException {
        if (closed) {
            throw new SandboxException(ErrorKind.UNAVAILABLE, "sandboxd is shutting down");
        }
        if (live.incrementAndGet() > maxProcesses) {
            live.decrementAndGet();
            throw new SandboxException(ErrorKind.RESOURCE_EXHAUSTED,
                    "too many processes: the limit is " + maxProcesses + " (--max-processes)");
        }
    }

    private void unreserve() {
        live.decrementAndGet();
    }

    /**
     * Out of file descriptors is a resource limit the client can wait out, not a daemon fault;
     * anything else stays INTERNAL. The library's message is not passed on: it names host paths.
     */
    static SandboxException startFailure(String prefix, Throwable e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("error=24") || m.contains("Too many open files") || m.contains("errno 24")) {
            return PipeSpawner.descriptorsExhausted(prefix);
        }
        return new SandboxException(ErrorKind.INTERNAL, prefix);
    }

    private ManagedProcess spawn(int id, String rpc, LaunchPlan plan, boolean withStdin) throws SandboxException {
        ManagedProcess p;
        if (plan.mode() == SpawnMode.PTY) {
            PtyTerminal t;
            try {
                t = PtyTerminal.spawn(plan);
            } catch (IOException | LinkageError e) {
                throw startFailure("failed to start command with PTY", e);
            }
            p = new ManagedProcess(id, rpc, t, withStdin, this);
        } else {
            IoLoop l;
            PipeSpawner.Spawned spawned;
            String prefix = id == 0 ? "failed to execute command" : "failed to start command";
            try {
                l = loop();
                spawned = PipeSpawner.spawn(plan, withStdin, spawnAttributes, prefix);
            } catch (LinkageError | IllegalStateException e) {
                throw new SandboxException(ErrorKind.INTERNAL, prefix + ": process support unavailable ("
                        + e.getClass().getSimpleName() + ")");
            }
            p = new ManagedProcess(id, rpc, spawned, this);
        }
        all.add(p);
        metrics.started(rpc, plan.mode());
        metrics.running.incrementAndGet();
        return p;
    }

    void forget(ManagedProcess p) {
        if (p.id() != 0) {
            addressable.remove(p.id(), p);
        }
    }

    void released(ManagedProcess p) {
        // Background children may outlive their stream (with or without holding its pipes);
        // shutdown kills whatever is left of every session we created.
        sessions.add(p.pid());
        if (sessions.size() > SESSION_PRUNE_THRESHOLD && pruning.compareAndSet(false, true)) {
            io.timers.execute(() -> {
                try {
                    sessions.retainAll(SessionSweeper.liveSessions(Set.copyOf(sessions)));
                } finally {
                    pruning.set(false);
                }
            });
        }
        if (p.id() != 0) {
            addressable.remove(p.id(), p);
        }
        if (all.remove(p)) {
            metrics.running.decrementAndGet();
            live.decrementAndGet();
        }
    }

    /**
     * Shutdown (CONTRACT §1.8): refuse new processes, SIGTERM every group, SIGKILL what is left
     * after {@code grace}, wait for every owner to deliver its exit, then kill background
     * children that outlived their streams. Returns by {@code deadlineNanos}.
     *
     * @return true if every process ended and delivered its exit in time
     */
    public boolean terminateAll(long graceNanos, long deadlineNanos) {
        closed = true;
        List<ManagedProcess> snapshot = new ArrayList<>(all);
        for (ManagedProcess p : snapshot) {
            p.terminate();
        }
        long killAt = Math.min(System.nanoTime() + graceNanos, deadlineNanos);
        awaitAll(snapshot, killAt);
        List<ManagedProcess> rest = new ArrayList<>(all);
        for (ManagedProcess p : rest) {
            p.killTree();
        }
        boolean allDone = awaitAll(rest, deadlineNanos);
        snapshot.forEach(p -> sessions.add(p.pid()));
        rest.forEach(p -> sessions.add(p.pid()));
        SessionSweeper.killSessions(Set.copyOf(sessions));
        return allDone;
    }

    private static boolean awaitAll(List<ManagedProcess> ps, long deadlineNanos) {
        CompletableFuture<?> done = CompletableFuture.allOf(ps.stream().map(ManagedProcess::finished)
                .toArray(CompletableFuture[]::new));
        long left = deadlineNanos - System.nanoTime();
        try {
            done.get(Math.max(0, left), TimeUnit.NANOSECONDS);
            return true;
        } catch (Exception e) {
            return done.isDone();
        }
    }

    @Override
    public void close() {
        closed = true;
        io.shutdown();
        IoLoop l = loop;
        if (l != null) {
            l.close();
        }
    }
}
