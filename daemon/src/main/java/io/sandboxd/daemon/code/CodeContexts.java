package io.sandboxd.daemon.code;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.ProcessCore;
import io.sandboxd.daemon.process.os.ChildCredentials;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The code contexts of the daemon (issue 20, runtime-contract §4.4): creates them on installed
 * kernelspecs, finds them by id, lists them, deletes idle ones after {@code --code-idle-timeout},
 * and ends them all at shutdown. The kernel loop thread and the ZeroMQ context exist only once the
 * first context is created, so a daemon that never runs code pays nothing for them.
 */
public final class CodeContexts implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ProcessCore core;
    private final KernelspecCatalog catalog;
    private final Path stateDir;
    private final ChildCredentials runAs;
    private final CodeSettings settings;
    private final Map<String, CodeContext> byId = new ConcurrentHashMap<>();
    /** Contexts counted under --code-max-contexts, creations under way included. */
    private final AtomicInteger places = new AtomicInteger();

    private final Counter badSignatures;
    private final ExecutorService spawns = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sandboxd-kernel-spawn");
        t.setDaemon(true);
        return t;
    });
    private volatile Started started;
    private volatile boolean closed;

    /** What exists once the first context was asked for. */
    private record Started(KernelLoop loop, KernelLauncher launcher, KernelDirectory directory) {}

    public CodeContexts(
            ProcessCore core,
            KernelspecCatalog catalog,
            Path stateDir,
            ChildCredentials runAs,
            CodeSettings settings,
            MeterRegistry registry) {
        this.core = core;
        this.catalog = catalog;
        this.stateDir = stateDir;
        this.runAs = runAs;
        this.settings = settings;
        this.badSignatures = Counter.builder("sandboxd.code.bad.signatures")
                .description("Kernel messages dropped because their HMAC signature was wrong")
                .register(registry);
        Gauge.builder("sandboxd.code.contexts", byId, Map::size)
                .description("Code contexts")
                .register(registry);
    }

    public CodeSettings settings() {
        return settings;
    }

    private synchronized Started started() throws SandboxException {
        Started s = started;
        if (s == null) {
            try {
                KernelDirectory dir = new KernelDirectory(stateDir);
                KernelLoop loop = new KernelLoop();
                s = new Started(loop, new KernelLauncher(core, dir, runAs), dir);
                started = s;
                long period =
                        Math.max(1000, Math.min(60_000, settings.idleTimeout().toMillis() / 4));
                if (!settings.idleTimeout().isZero()) {
                    Started st = s;
                    loop.execute(() -> reapEvery(st.loop(), period));
                }
            } catch (IOException e) {
                throw new SandboxException(ErrorKind.INTERNAL, "cannot prepare the kernel directory in --state-dir");
            }
        }
        return s;
    }

    private void reapEvery(KernelLoop loop, long periodMillis) {
        if (closed) {
            return;
        }
        long cutoff = System.currentTimeMillis() - settings.idleTimeout().toMillis();
        for (CodeContext c : byId.values()) {
            if (c.idleSince(cutoff) && byId.remove(c.id(), c)) {
                c.delete("context " + c.id() + " was idle for " + settings.idleTimeout() + " (--code-idle-timeout)");
                places.decrementAndGet();
            }
        }
        loop.schedule(periodMillis, () -> reapEvery(loop, periodMillis));
    }

    /**
     * Starts a kernel for {@code kernel} (a kernelspec name) or else {@code language}; completes
     * when it answers.
     *
     * @throws SandboxException NOT_FOUND for an unknown kernel/language (naming the installed
     *     ones), RESOURCE_EXHAUSTED beyond --code-max-contexts, UNAVAILABLE while shutting down
     */
    public CompletableFuture<CodeContext> create(String kernel, String language, String cwd, Map<String, String> env)
            throws SandboxException {
        if (closed) {
            throw new SandboxException(ErrorKind.UNAVAILABLE, "sandboxd is shutting down");
        }
        Kernelspec spec = catalog.find(kernel, language);
        if (places.incrementAndGet() > settings.maxContexts()) {
            places.decrementAndGet();
            throw new SandboxException(
                    ErrorKind.RESOURCE_EXHAUSTED,
                    "too many code contexts: the limit is " + settings.maxContexts() + " (--code-max-contexts)");
        }
        CodeContext c;
        try {
            Started s = started();
            byte[] raw = new byte[8];
            RANDOM.nextBytes(raw);
            String id = "ctx-" + HexFormat.of().formatHex(raw);
            c = new CodeContext(
                    id,
                    spec,
                    cwd == null ? "" : cwd,
                    env,
                    s.loop(),
                    s.launcher(),
                    spawns,
                    settings,
                    badSignatures::increment);
            byId.put(id, c);
        } catch (SandboxException | RuntimeException e) {
            places.decrementAndGet();
            throw e;
        }
        CodeContext created = c;
        return c.start().handle((v, err) -> {
            if (err == null) {
                return created;
            }
            if (byId.remove(created.id(), created)) {
                places.decrementAndGet();
                created.delete("the kernel could not be started");
            }
            throw err instanceof java.util.concurrent.CompletionException ce
                    ? ce
                    : new java.util.concurrent.CompletionException(err);
        });
    }

    /** @throws SandboxException NOT_FOUND for an unknown (or deleted) id */
    public CodeContext find(String id) throws SandboxException {
        CodeContext c = id == null ? null : byId.get(id);
        if (c == null) {
            throw new SandboxException(
                    ErrorKind.NOT_FOUND, "context \"" + (id == null ? "" : truncate(id)) + "\" not found");
        }
        return c;
    }

    private static String truncate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }

    /** Kills the kernel and forgets the context; its executions end ABORTED. */
    public CompletableFuture<Void> delete(String id) throws SandboxException {
        CodeContext c = find(id);
        if (!byId.remove(id, c)) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "context \"" + truncate(id) + "\" not found");
        }
        places.decrementAndGet();
        return c.delete("context " + id + " was deleted");
    }

    /** Every context, oldest first. */
    public List<ContextSnapshot> list() {
        List<ContextSnapshot> out = new ArrayList<>();
        for (CodeContext c : byId.values()) {
            out.add(c.snapshot());
        }
        out.sort(Comparator.comparingLong(ContextSnapshot::createdMillis).thenComparing(ContextSnapshot::id));
        return out;
    }

    /**
     * Shutdown, before the process core ends every process: running and queued executions end
     * ABORTED, every kernel tree is killed, the connection files go; bounded by {@code deadlineNanos}.
     */
    public void shutdown(long deadlineNanos) {
        closed = true;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (CodeContext c : byId.values()) {
            done.add(c.delete("sandboxd is shutting down"));
        }
        byId.clear();
        try {
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
                    .get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (Exception e) {
            // the deadline passed: the process core's shutdown still kills every kernel
        }
    }

    /** Stops the loop thread and the spawn pool; after {@link #shutdown}. */
    @Override
    public void close() {
        closed = true;
        spawns.shutdownNow();
        Started s = started;
        if (s != null) {
            s.loop().close();
            s.directory().delete();
        }
    }
}
