package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.SandboxException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The process core: starts processes in their own sessions, finds Start processes by id and ends
 * them all at shutdown. Knows nothing about any transport. Composed of the registry (ids, the
 * {@code --max-processes} cap) and the runtime every process runs on, both handed in, and the
 * journal of the sessions it created; the processes report their end back through a
 * {@link ProcessEndListener}.
 */
public final class ProcessCore implements AutoCloseable {
    private final CommandResolver resolver;
    private final ProcessRegistry registry;
    private final ProcessRuntime runtime;
    private final ProcessLauncher launcher;
    private final SessionJournal sessions;
    private final ProcessEndListener ends = new Ends();
    private volatile DurableProcesses durable;

    /** Takes over the registry and the runtime: {@link #close()} closes both. */
    public ProcessCore(CommandResolver resolver, ProcessRegistry registry, ProcessRuntime runtime) {
        this.resolver = resolver;
        this.registry = registry;
        this.runtime = runtime;
        this.launcher = new ProcessLauncher(runtime);
        this.sessions = new SessionJournal(runtime.timers());
    }

    /**
     * Durable processes (issue 18) on this core, journalling into {@code store}; from now on
     * every Start process is journalled as well. Call once, before serving.
     */
    public DurableProcesses enableDurable(
            io.sandboxd.daemon.process.journal.JournalStore store, DurableProcesses.Settings settings) {
        durable = new DurableProcesses(this, store, runtime.timers(), settings);
        return durable;
    }

    /** The durable processes, or null unless {@link #enableDurable} was called. */
    public DurableProcesses durable() {
        return durable;
    }

    /** Start: a registered process with stdin, addressable by its id until its output ends. */
    public ManagedProcess start(ProcessRequest request) throws SandboxException {
        ManagedProcess p = startPublished(request);
        DurableProcesses d = durable;
        if (d != null) {
            d.adopt(p, request);
        }
        return p;
    }

    /** Start without the journal: the durable processes pump it into their own. */
    ManagedProcess startPublished(ProcessRequest request) throws SandboxException {
        LaunchPlan plan = resolver.resolve(request);
        registry.reserve();
        int id = registry.nextId();
        try {
            ManagedProcess p = spawn(id, "start", plan, true);
            registry.publish(p);
            return p;
        } catch (SandboxException | RuntimeException e) {
            registry.unreserve();
            throw e;
        }
    }

    /** Execute: runs to completion with stdin from /dev/null, keeping at most {@code limit} bytes per stream. */
    public Execution execute(ProcessRequest request, int outputLimit) throws SandboxException {
        if (request.terminal() != null) {
            throw new IllegalArgumentException("Execute has no terminal");
        }
        LaunchPlan plan = resolver.resolve(request);
        registry.reserve();
        ManagedProcess p;
        try {
            p = spawn(0, "execute", plan, false);
        } catch (SandboxException | RuntimeException e) {
            registry.unreserve();
            throw e;
        }
        CapturingSink sink = new CapturingSink(outputLimit);
        p.pump(sink);
        return new Execution(p, sink.result);
    }

    /**
     * A process no process.v1 call addresses (a code context's kernel): resolved, confined,
     * spawned in its own session and counted under {@code --max-processes} like every other, with
     * stdin from /dev/null and its output pumped into {@code sink}; shutdown ends it with the rest.
     */
    public ManagedProcess startUnlisted(ProcessRequest request, String kind, OutputSink sink) throws SandboxException {
        if (request.terminal() != null) {
            throw new IllegalArgumentException("an unlisted process has no terminal");
        }
        LaunchPlan plan = resolver.resolve(request);
        registry.reserve();
        ManagedProcess p;
        try {
            p = spawn(0, kind, plan, false);
        } catch (SandboxException | RuntimeException e) {
            registry.unreserve();
            throw e;
        }
        p.pump(sink);
        return p;
    }

    /** @throws SandboxException NOT_FOUND unless a Start process with this id is still streaming */
    public ManagedProcess find(int id) throws SandboxException {
        return registry.find(id);
    }

    private ManagedProcess spawn(int id, String rpc, LaunchPlan plan, boolean withStdin) throws SandboxException {
        ManagedProcess p = launcher.launch(id, plan, withStdin, ends);
        registry.admit(p);
        runtime.metrics().started(rpc, plan.mode());
        runtime.metrics().running.incrementAndGet();
        return p;
    }

    /** What the core does when one of its processes ends. */
    private final class Ends implements ProcessEndListener {
        @Override
        public void exiting(ManagedProcess p) {
            registry.forget(p);
        }

        @Override
        public void ended(ManagedProcess p) {
            sessions.add(p.pid());
            if (registry.release(p)) {
                runtime.metrics().running.decrementAndGet();
            }
        }
    }

    /**
     * Shutdown (runtime-contract §1.8): refuse new processes, SIGTERM every group, SIGKILL what is left
     * after {@code grace}, wait for every owner to deliver its exit, then kill background
     * children that outlived their streams. Returns by {@code deadlineNanos}.
     */
    public void terminateAll(long graceNanos, long deadlineNanos) {
        registry.close();
        List<ManagedProcess> snapshot = registry.snapshot();
        for (ManagedProcess p : snapshot) {
            p.terminate();
        }
        long killAt = Math.min(System.nanoTime() + graceNanos, deadlineNanos);
        awaitAll(snapshot, killAt);
        List<ManagedProcess> rest = registry.snapshot();
        for (ManagedProcess p : rest) {
            p.killTree();
        }
        awaitAll(rest, deadlineNanos);
        snapshot.forEach(p -> sessions.add(p.pid()));
        rest.forEach(p -> sessions.add(p.pid()));
        sessions.killAll();
    }

    /** Waits, until the deadline at most, for every process to have delivered its exit. */
    private static void awaitAll(List<ManagedProcess> ps, long deadlineNanos) {
        CompletableFuture<?> done = CompletableFuture.allOf(
                ps.stream().map(ManagedProcess::finished).toArray(CompletableFuture[]::new));
        long left = deadlineNanos - System.nanoTime();
        try {
            done.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (Exception e) {
            // the deadline passed (or the wait was interrupted): shutdown goes on regardless
        }
    }

    /** Refuses new processes and stops the runtime's threads and loop. */
    @Override
    public void close() {
        registry.close();
        runtime.close();
        DurableProcesses d = durable;
        if (d != null) {
            d.close();
        }
    }
}
