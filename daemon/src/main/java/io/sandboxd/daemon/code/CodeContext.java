package io.sandboxd.daemon.code;

import com.google.gson.JsonObject;
import io.sandboxd.daemon.code.ContextSnapshot.ContextState;
import io.sandboxd.daemon.code.ExecutionOutcome.State;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.ProcessSignal;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One code context: a kernel (restartable under the same id) and its executions, which run one at
 * a time in submission order. Protocol events, timers and state changes all happen on the
 * {@link KernelLoop} (holding its lock); the public methods may be called from any thread and
 * hand their work to it.
 *
 * <p>An execution is done when the kernel has sent both its execute_reply (shell) and the idle
 * status for it (iopub), so every output came before the outcome; if the idle status is lost the
 * reply alone ends it after {@link #LATE_IDLE_MILLIS}. A kernel is dead when its process exits or
 * its heartbeat stays unanswered for the heartbeat timeout (it is then killed).
 */
public final class CodeContext {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger("sandboxd.code");

    static final long HEARTBEAT_INTERVAL_MILLIS = 1000;
    static final long LATE_IDLE_MILLIS = 2000;
    /** What a timed-out execution has, after its interrupt, before the kernel is killed. */
    static final long INTERRUPT_GRACE_MILLIS = 3000;
    /** kernel_info_request is repeated this often until iopub proves subscribed (jupyter_client does the same). */
    static final long HANDSHAKE_RETRY_MILLIS = 200;
    /** After shell disconnects, how long the kernel's exit has to be seen before the drop counts as a protocol error. */
    static final long SHELL_DROP_GRACE_MILLIS = 2000;

    private final String id;
    private final Kernelspec spec;
    private final String cwd;
    private final Map<String, String> env;
    private final KernelLoop loop;
    private final KernelLauncher launcher;
    private final Executor spawns;
    private final CodeSettings settings;
    private final Runnable badSignatureMeter;
    private final long createdMillis = System.currentTimeMillis();
    private final AtomicLong badSignatures = new AtomicLong();

    // Read by List from any thread.
    private volatile long lastUsedMillis = createdMillis;
    private volatile ContextState state = ContextState.STARTING;
    private volatile long pid;
    private volatile int queuedCount;

    // On the loop only.
    private final ArrayDeque<CodeExecution> queue = new ArrayDeque<>();
    private CodeExecution running;
    private Kernel kernel;
    private int launches;
    private boolean deleted;

    CodeContext(
            String id,
            Kernelspec spec,
            String cwd,
            Map<String, String> env,
            KernelLoop loop,
            KernelLauncher launcher,
            Executor spawns,
            CodeSettings settings,
            Runnable badSignatureMeter) {
        this.id = id;
        this.spec = spec;
        this.cwd = cwd;
        this.env = Map.copyOf(env);
        this.loop = loop;
        this.launcher = launcher;
        this.spawns = spawns;
        this.settings = settings;
        this.badSignatureMeter = badSignatureMeter;
    }

    public String id() {
        return id;
    }

    public ContextSnapshot snapshot() {
        long p = pid;
        ContextState s = state;
        return new ContextSnapshot(
                id,
                spec.language(),
                spec.name(),
                cwd,
                s,
                createdMillis,
                lastUsedMillis,
                s == ContextState.DEAD ? 0 : p,
                s == ContextState.DEAD || p == 0 ? 0 : ProcRss.of(p),
                queuedCount,
                badSignatures.get());
    }

    /** Not running, nothing queued, not starting, and unused since {@code cutoffMillis}. */
    boolean idleSince(long cutoffMillis) {
        ContextState s = state;
        return (s == ContextState.IDLE || s == ContextState.DEAD) && queuedCount == 0 && lastUsedMillis < cutoffMillis;
    }

    // ---- kernel lifecycle -------------------------------------------------------------------

    /** Starts a kernel; completes once it answers, or with the SandboxException that stopped it. */
    CompletableFuture<Void> start() {
        CompletableFuture<Void> ready = new CompletableFuture<>();
        loop.execute(() -> launch(ready));
        return ready;
    }

    /** On the loop: spawns off it (posix_spawn and the file write block briefly), adopts on it. */
    private void launch(CompletableFuture<Void> ready) {
        int seq = ++launches;
        state = ContextState.STARTING;
        try {
            spawns.execute(() -> {
                KernelLauncher.Spawned s;
                try {
                    s = launcher.spawn(id + "-" + seq + ".json", spec, cwd, env);
                } catch (SandboxException | RuntimeException e) {
                    loop.execute(() -> notStarted(seq, ready, e));
                    return;
                }
                loop.execute(() -> adopt(seq, s, ready));
            });
        } catch (RejectedExecutionException e) {
            notStarted(seq, ready, new SandboxException(ErrorKind.UNAVAILABLE, "sandboxd is shutting down"));
        }
    }

    private void notStarted(int seq, CompletableFuture<Void> ready, Exception why) {
        if (seq == launches && !deleted) {
            markDead();
            failQueued(State.KERNEL_DIED, "the kernel could not be started");
        }
        ready.completeExceptionally(why);
    }

    private void adopt(int seq, KernelLauncher.Spawned s, CompletableFuture<Void> ready) {
        Kernel k = new Kernel(s, ready);
        if (seq != launches || deleted) {
            k.gone = true;
            k.cleanUp();
            ready.completeExceptionally(new SandboxException(
                    ErrorKind.FAILED_PRECONDITION, "context " + id + " was restarted or deleted while starting"));
            return;
        }
        kernel = k;
        pid = s.process().pid();
        // The deadline first: whatever happens below, this start ends, and so does its Restart.
        long startMillis = settings.startTimeout().toMillis();
        k.startDeadline = loop.schedule(startMillis, () -> {
            if (!k.ready.isDone()) {
                gone(
                        k,
                        "the kernel did not answer within "
                                + settings.startTimeout().toSeconds() + " s (--code-start-timeout): "
                                + k.handshakeState(),
                        ErrorKind.DEADLINE_EXCEEDED);
            }
        });
        s.process().finished().whenComplete((code, err) -> loop.execute(() -> exited(k, code == null ? -1 : code)));
        try {
            k.conn.open();
            k.handshake();
        } catch (RuntimeException e) {
            gone(k, "sandboxd could not connect to the kernel (" + e.getMessage() + ")", ErrorKind.INTERNAL);
        }
    }

    private void becameReady(Kernel k) {
        k.process.output().mark();
        k.startDeadline.cancel();
        k.handshakeTimer.cancel();
        k.lastBeatNanos = System.nanoTime();
        k.beatTimer = loop.schedule(HEARTBEAT_INTERVAL_MILLIS, () -> beat(k));
        state = ContextState.IDLE;
        lastUsedMillis = System.currentTimeMillis(); // idle time counts from here, not from the request
        k.ready.complete(null);
        pump();
    }

    private void beat(Kernel k) {
        if (k.gone) {
            return;
        }
        boolean outstanding = k.conn.ping();
        long silentNanos = System.nanoTime() - k.lastBeatNanos;
        if (outstanding && silentNanos > settings.heartbeatTimeout().toNanos()) {
            gone(
                    k,
                    "the kernel stopped answering its heartbeat for "
                            + settings.heartbeatTimeout().toSeconds() + " s and was killed",
                    ErrorKind.UNAVAILABLE);
            return;
        }
        k.beatTimer = loop.schedule(HEARTBEAT_INTERVAL_MILLIS, () -> beat(k));
    }

    private void exited(Kernel k, int code) {
        gone(k, "the kernel exited (code " + code + ")", ErrorKind.FAILED_PRECONDITION);
    }

    /** The kernel is dead (exited, hung or too slow to start): every execution learns it, the context is DEAD. */
    private void gone(Kernel k, String reason, ErrorKind startFailure) {
        if (k.gone) {
            return;
        }
        k.gone = true;
        k.cleanUp();
        if (k != kernel) {
            return;
        }
        // The kernel's last words say why more often than anything else: in the error and the log.
        String last = k.process.output().quoted();
        LOG.warn("sandboxd: code context {}: {}{}", id, reason, last);
        kernel = null;
        markDead();
        k.ready.completeExceptionally(new SandboxException(startFailure, reason + " while starting" + last));
        CodeExecution r = running;
        if (r != null) {
            finish(
                    r,
                    new ExecutionOutcome(
                            r.timedOut ? State.TIMED_OUT : State.KERNEL_DIED,
                            r.executionCount,
                            (r.timedOut ? "timed out after " + r.timeoutMillis + " ms; " + reason : reason) + last,
                            0));
        }
        failQueued(State.KERNEL_DIED, reason + " before this execution ran");
    }

    private void markDead() {
        state = ContextState.DEAD;
        pid = 0;
    }

    /** Restart: the old kernel goes (its executions end ABORTED), a new one starts under the same id. */
    public CompletableFuture<Void> restart() {
        CompletableFuture<Void> ready = new CompletableFuture<>();
        loop.execute(() -> {
            if (deleted) {
                ready.completeExceptionally(new SandboxException(ErrorKind.NOT_FOUND, "context " + id + " not found"));
                return;
            }
            retire("context " + id + " was restarted");
            lastUsedMillis = System.currentTimeMillis();
            launch(ready);
        });
        return ready;
    }

    /** Ends the kernel and every execution (ABORTED with {@code why}); the context is unusable afterwards. */
    CompletableFuture<Void> delete(String why) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.execute(() -> {
            deleted = true;
            retire(why);
            launcher.forget(id);
            markDead();
            done.complete(null);
        });
        return done;
    }

    private void retire(String why) {
        // The kernel goes first: finishing the running execution pumps the queue, which must not
        // hand the next execution to this kernel (it would wait for a reply that never comes).
        Kernel k = kernel;
        kernel = null;
        if (k != null && !k.gone) {
            k.gone = true;
            k.cleanUp();
            k.ready.completeExceptionally(new SandboxException(ErrorKind.FAILED_PRECONDITION, why));
        }
        CodeExecution r = running;
        if (r != null) {
            finish(r, new ExecutionOutcome(State.ABORTED, r.executionCount, why, r.oversized));
        }
        failQueued(State.ABORTED, why);
    }

    // ---- executions -------------------------------------------------------------------------

    /**
     * Queues {@code code} behind what was submitted before.
     *
     * @throws SandboxException FAILED_PRECONDITION when the context is dead
     */
    public CodeExecution execute(String code, long timeoutMillis, ExecutionSink sink) throws SandboxException {
        if (state == ContextState.DEAD) {
            throw new SandboxException(
                    ErrorKind.FAILED_PRECONDITION, "context " + id + " is dead (its kernel ended): Restart it");
        }
        CodeExecution e = new CodeExecution(this, code, timeoutMillis, settings.outputLimit(), sink);
        lastUsedMillis = System.currentTimeMillis();
        loop.execute(() -> {
            if (deleted) {
                finish(e, new ExecutionOutcome(State.ABORTED, 0, "context " + id + " was deleted", 0));
            } else if (state == ContextState.DEAD) {
                finish(e, new ExecutionOutcome(State.KERNEL_DIED, 0, "context " + id + " is dead", 0));
            } else {
                queue.addLast(e);
                queuedCount = queue.size();
                pump();
            }
        });
        return e;
    }

    private void pump() {
        Kernel k = kernel;
        if (running != null || k == null || k.gone || !k.ready.isDone() || !k.iopubSeen) {
            return; // (iopubSeen: after iopub was reopened, the next execution waits for it to flow again)
        }
        CodeExecution e = queue.pollFirst();
        queuedCount = queue.size();
        if (e == null) {
            state = ContextState.IDLE;
            return;
        }
        running = e;
        state = ContextState.BUSY;
        JsonObject c = new JsonObject();
        c.addProperty("code", e.code);
        c.addProperty("silent", false);
        c.addProperty("store_history", true);
        c.add("user_expressions", new JsonObject());
        // No stdin channel: input() raises in the code (ipykernel: StdinNotImplementedError).
        c.addProperty("allow_stdin", false);
        // Executions are independent requests: one failing must not abort the next.
        c.addProperty("stop_on_error", false);
        e.msgId = k.conn.send(false, "execute_request", c);
        if (e.timeoutMillis > 0) {
            e.timeout = loop.schedule(e.timeoutMillis, () -> timedOut(e));
        }
    }

    private void timedOut(CodeExecution e) {
        if (e.done || running != e) {
            return;
        }
        e.timedOut = true;
        interruptKernel();
        Kernel k = kernel;
        e.timeout = loop.schedule(INTERRUPT_GRACE_MILLIS, () -> {
            if (!e.done && k != null) {
                gone(
                        k,
                        "the kernel did not stop within " + INTERRUPT_GRACE_MILLIS
                                + " ms of the interrupt and was killed",
                        ErrorKind.UNAVAILABLE);
            }
        });
    }

    /** Interrupts the running execution, if any; queued ones run afterwards. */
    public CompletableFuture<Void> interrupt() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.execute(() -> {
            if (deleted) {
                done.completeExceptionally(new SandboxException(ErrorKind.NOT_FOUND, "context " + id + " not found"));
                return;
            }
            if (running != null) {
                interruptKernel();
            }
            done.complete(null);
        });
        return done;
    }

    private void interruptKernel() {
        Kernel k = kernel;
        if (k == null || k.gone) {
            return;
        }
        if (spec.interruptBySignal()) {
            k.process.process().signal(ProcessSignal.SIGINT);
        } else {
            k.conn.send(true, "interrupt_request", new JsonObject());
        }
    }

    void cancel(CodeExecution e) {
        loop.execute(() -> {
            if (e.done) {
                return;
            }
            e.cancelled = true;
            if (queue.remove(e)) {
                queuedCount = queue.size();
                finish(e, new ExecutionOutcome(State.ABORTED, 0, "cancelled by the caller", 0));
            } else if (running == e) {
                interruptKernel();
            }
        });
    }

    private void failQueued(State state, String why) {
        CodeExecution e;
        while ((e = queue.pollFirst()) != null) {
            finish(e, new ExecutionOutcome(state, 0, why, 0));
        }
        queuedCount = 0;
    }

    private void finish(CodeExecution e, ExecutionOutcome outcome) {
        if (e.done) {
            return;
        }
        e.done = true;
        e.cancelTimers();
        e.window.finish();
        try {
            e.sink.finished(outcome);
        } finally {
            lastUsedMillis = System.currentTimeMillis();
            if (running == e) {
                running = null;
                if (state == ContextState.BUSY) {
                    state = ContextState.IDLE;
                }
                pump();
            }
        }
    }

    private void maybeFinish(CodeExecution e) {
        if (!e.replied || !e.idle) {
            return;
        }
        State s;
        String message = "";
        if (e.timedOut) {
            s = State.TIMED_OUT;
            message = "timed out after " + e.timeoutMillis + " ms; the kernel was interrupted";
        } else {
            s = switch (e.replyStatus) {
                case "ok" -> State.OK;
                case "aborted" -> State.ABORTED;
                default -> State.ERROR;
            };
            if (s == State.ABORTED) {
                message = "the kernel aborted it";
            }
        }
        if (e.oversized > 0) {
            message = (message.isEmpty() ? "" : message + "; ") + e.oversized
                    + " kernel message(s) over --code-max-message-size (" + settings.maxMessageSize()
                    + " bytes) dropped";
        }
        finish(e, new ExecutionOutcome(s, e.executionCount, message, e.oversized));
    }

    // ---- protocol events (on the loop) -----------------------------------------------------

    private void onIopub(Kernel k, KernelMessage m) {
        if (k != kernel) {
            return;
        }
        if (!k.iopubSeen) {
            k.iopubSeen = true;
            k.checkReady();
            pump();
        }
        CodeExecution e = running;
        if (e == null || !m.parentMsgId().equals(e.msgId)) {
            return;
        }
        switch (m.msgType()) {
            case "status" -> {
                if ("idle".equals(WireCodec.string(m.content(), "execution_state"))) {
                    e.idle = true;
                    maybeFinish(e);
                }
            }
            case "execute_input" -> e.executionCount = count(m.content(), e.executionCount);
            default -> {
                CodeOutput o = IopubOutputs.parse(m.msgType(), m.content());
                if (o != null) {
                    e.window.offer(o);
                }
            }
        }
    }

    private void onShellReply(Kernel k, KernelMessage m) {
        if (k != kernel) {
            return;
        }
        if (m.msgType().equals("kernel_info_reply")) {
            k.infoReplied = true;
            k.checkReady();
            return;
        }
        CodeExecution e = running;
        if (e == null
                || !m.msgType().equals("execute_reply")
                || !m.parentMsgId().equals(e.msgId)) {
            return;
        }
        e.replied = true;
        e.replyStatus = WireCodec.string(m.content(), "status");
        e.executionCount = count(m.content(), e.executionCount);
        if (!e.idle) {
            e.lateIdle = loop.schedule(LATE_IDLE_MILLIS, () -> {
                e.idle = true;
                maybeFinish(e);
            });
        }
        maybeFinish(e);
    }

    private static int count(JsonObject content, int otherwise) {
        var c = content.get("execution_count");
        return c != null && c.isJsonPrimitive() && c.getAsJsonPrimitive().isNumber() ? c.getAsInt() : otherwise;
    }

    /** One kernel process with its connection: a context has a new one after each restart. */
    private final class Kernel implements KernelConnection.Listener {
        final KernelLauncher.Spawned process;
        final KernelConnection conn;
        final CompletableFuture<Void> ready;
        boolean gone;
        boolean infoReplied;
        boolean iopubSeen;
        int iopubDrops;
        long lastBeatNanos;
        KernelLoop.Timer startDeadline;
        KernelLoop.Timer handshakeTimer;
        KernelLoop.Timer beatTimer;

        Kernel(KernelLauncher.Spawned process, CompletableFuture<Void> ready) {
            this.process = process;
            this.ready = ready;
            this.conn = new KernelConnection(loop, process.file(), settings.maxMessageSize(), this);
        }

        /** kernel_info_request until both its reply and an iopub message came: then nothing on iopub is missed. */
        void handshake() {
            if (gone || (ready.isDone() && iopubSeen)) {
                return;
            }
            conn.send(false, "kernel_info_request", new JsonObject());
            handshakeTimer = loop.schedule(HANDSHAKE_RETRY_MILLIS, this::handshake);
        }

        /** What the start is still waiting for, for the start-timeout error. */
        String handshakeState() {
            String s = !infoReplied && !iopubSeen
                    ? "no reply to kernel_info_request on shell and nothing on iopub"
                    : !infoReplied ? "no reply to kernel_info_request on shell" : "nothing on iopub";
            return iopubDrops == 0 ? s : s + " (iopub reconnected " + iopubDrops + " times)";
        }

        void checkReady() {
            if (infoReplied && iopubSeen && !ready.isDone() && !gone) {
                becameReady(this);
            }
        }

        /** Sockets closed, file deleted, process tree killed (a no-op once it ended). */
        void cleanUp() {
            for (KernelLoop.Timer t : new KernelLoop.Timer[] {startDeadline, handshakeTimer, beatTimer}) {
                if (t != null) {
                    t.cancel();
                }
            }
            conn.close();
            // killed first: a kernel still starting rewrites its file, which must not outlive it
            process.process().killTree();
            process.file().delete();
        }

        @Override
        public void onIopub(KernelMessage m) {
            CodeContext.this.onIopub(this, m);
        }

        @Override
        public void onShellReply(KernelMessage m) {
            CodeContext.this.onShellReply(this, m);
        }

        @Override
        public void onControlReply(KernelMessage m) {
            // interrupt_reply: the outcome arrives with the interrupted execution's own reply
        }

        @Override
        public void onHeartbeat() {
            lastBeatNanos = System.nanoTime();
        }

        @Override
        public void onRejected(boolean badSignature) {
            if (badSignature) {
                badSignatures.incrementAndGet();
                badSignatureMeter.run();
            }
        }

        @Override
        public void onIopubDropped() {
            if (gone) {
                return;
            }
            CodeExecution e = running;
            if (e != null) {
                e.oversized++;
            }
            iopubSeen = false;
            iopubDrops++;
            if (handshakeTimer != null) {
                handshakeTimer.cancel();
            }
            handshake(); // until the new subscription delivers
        }

        @Override
        public void onShellDropped() {
            // The kernel's death drops shell too, and its exit is reported on its own; a kernel
            // still running after a moment sent something over the size limit and cannot go on.
            loop.schedule(SHELL_DROP_GRACE_MILLIS, () -> {
                if (!process.process().finished().isDone()) {
                    gone(
                            this,
                            "the kernel sent a message over --code-max-message-size (" + settings.maxMessageSize()
                                    + " bytes) on shell and was killed",
                            ErrorKind.FAILED_PRECONDITION);
                }
            });
        }
    }
}
