package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.journal.JournalStore;
import io.sandboxd.daemon.process.journal.ProcessJournal;
import io.sandboxd.daemon.process.os.SessionUsage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The durable processes of the core (issue 18): started detachable, with a tag and a server-side
 * timeout, or adopted from {@code process.v1} Start; their ids are the core's one id space. Every
 * process's output goes to its journal. Ended processes are kept, exit record and journal, for
 * {@code keepMillis} and at most {@code maxEnded} of them (oldest forgotten first), then their
 * journal is deleted and their id is NOT_FOUND. Tags are unique among live processes.
 */
public final class DurableProcesses {
    /** Longest tag accepted. */
    public static final int MAX_TAG_LENGTH = 256;

    private final ProcessCore core;
    private final JournalStore store;
    private final ScheduledExecutorService timers;
    private final Settings settings;
    private final Map<Integer, DurableProcess> byId = new ConcurrentHashMap<>();
    /** Live tags; 0 while the process holding it is being spawned. */
    private final Map<String, Integer> liveTags = new ConcurrentHashMap<>();

    private final ConcurrentLinkedDeque<DurableProcess> ended = new ConcurrentLinkedDeque<>();
    private final Map<Integer, ScheduledFuture<?>> deadlines = new ConcurrentHashMap<>();

    /**
     * @param retention      default bytes retained per stream
     * @param maxRetention   largest retention a Start may ask for
     * @param timeoutGraceMillis SIGTERM to SIGKILL of a timed-out tree
     * @param keepMillis     how long an ended process stays
     * @param maxEnded       how many ended processes stay at most
     */
    public record Settings(long retention, long maxRetention, long timeoutGraceMillis, long keepMillis, int maxEnded) {}

    DurableProcesses(ProcessCore core, JournalStore store, ScheduledExecutorService timers, Settings settings) {
        this.core = core;
        this.store = store;
        this.timers = timers;
        this.settings = settings;
    }

    public Settings settings() {
        return settings;
    }

    public JournalStore store() {
        return store;
    }

    /**
     * Starts a journalled process. {@code timeoutMillis} 0 means none, {@code retention} 0 the default.
     *
     * @throws SandboxException ALREADY_EXISTS (CONFLICT) for a live tag, INVALID_ARGUMENT for a bad
     *                          tag or retention, and whatever {@link ProcessCore#start} throws
     */
    public DurableProcess start(ProcessRequest request, String tag, boolean detach, long timeoutMillis, long retention)
            throws SandboxException {
        String t = tag == null ? "" : tag;
        if (t.length() > MAX_TAG_LENGTH) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT, "tag is longer than " + MAX_TAG_LENGTH + " characters");
        }
        if (retention < 0 || retention > settings.maxRetention()) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT,
                    "retention_bytes " + retention + " is beyond the limit of " + settings.maxRetention()
                            + " (--journal-total-cap)");
        }
        if (timeoutMillis < 0) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "timeout must not be negative");
        }
        if (!t.isEmpty() && liveTags.putIfAbsent(t, 0) != null) {
            throw new SandboxException(ErrorKind.CONFLICT, "tag \"" + t + "\" is already used by a live process");
        }
        ManagedProcess p;
        try {
            p = core.startPublished(request);
        } catch (SandboxException | RuntimeException e) {
            if (!t.isEmpty()) {
                liveTags.remove(t, 0);
            }
            throw e;
        }
        ProcessJournal journal = store.open(p.id(), retention == 0 ? settings.retention() : retention);
        DurableProcess d = new DurableProcess(p, t, request, false, detach, journal);
        byId.put(d.id(), d);
        if (!t.isEmpty()) {
            liveTags.put(t, d.id());
        }
        if (timeoutMillis > 0) {
            deadlines.put(d.id(), timers.schedule(() -> timeOut(d, p), timeoutMillis, TimeUnit.MILLISECONDS));
        }
        p.pump(new JournalSink(d, this));
        return d;
    }

    /** The server-side deadline passed: SIGTERM to the tree, then SIGKILL after the grace. */
    private void timeOut(DurableProcess d, ManagedProcess p) {
        if (d.exit().isDone()) {
            return;
        }
        d.timedOut = true;
        p.terminate();
        deadlines.put(d.id(), timers.schedule(p::killTree, settings.timeoutGraceMillis(), TimeUnit.MILLISECONDS));
    }

    /**
     * A {@code process.v1} Start process: listed and attachable (its own sink unchanged), but
     * journalled only from its first attach on, so a Start nobody attaches to writes nothing to
     * disk; its bytes are only counted until then (one NOT_RECORDED gap for an attacher).
     */
    void adopt(ManagedProcess p, ProcessRequest request) {
        DurableProcess d =
                new DurableProcess(p, "", request, true, false, store.open(p.id(), settings.retention(), false));
        byId.put(d.id(), d);
        p.tee(sink -> new TeeSink(sink, d, this));
    }

    /** Its exit record is final: the tag is free, the process is kept as ended for a while. */
    void ended(DurableProcess d, int code) {
        ScheduledFuture<?> deadline = deadlines.remove(d.id());
        if (deadline != null) {
            deadline.cancel(false);
        }
        // The tag first: a Wait returns once the record is final, and a Start with the same tag
        // right after it was refused while the tag was still held (conformance DUR-TAG-001, seen
        // once in CI). Meanwhile findTag falls back to the kept process, which is this one.
        if (!d.tag().isEmpty()) {
            liveTags.remove(d.tag(), d.id());
        }
        d.ended(code);
        ended.addLast(d);
        while (ended.size() > settings.maxEnded()) {
            DurableProcess old = ended.pollFirst();
            if (old != null) {
                forget(old);
            }
        }
        try {
            timers.schedule(() -> forget(d), settings.keepMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            forget(d); // timers already stopped: the daemon is closing
        }
    }

    private void forget(DurableProcess d) {
        if (byId.remove(d.id(), d)) {
            ended.remove(d);
            d.journal().delete();
        }
    }

    /** @throws SandboxException NOT_FOUND unless the process is live or still kept */
    public DurableProcess find(int id) throws SandboxException {
        DurableProcess d = byId.get(id);
        if (d == null) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "process " + id + " not found");
        }
        return d;
    }

    /** The live process with this tag, else the latest kept one that had it. */
    public DurableProcess findTag(String tag) throws SandboxException {
        Integer id = liveTags.get(tag);
        DurableProcess d = id == null || id == 0 ? null : byId.get(id);
        if (d == null) {
            d = byId.values().stream()
                    .filter(p -> p.tag().equals(tag))
                    .max(Comparator.comparingInt(DurableProcess::id))
                    .orElse(null);
        }
        if (d == null) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "no process with tag \"" + tag + "\"");
        }
        return d;
    }

    /** Live processes, and kept ended ones too when {@code all}, by id. */
    public List<DurableProcess> list(boolean all) {
        List<DurableProcess> out = new ArrayList<>();
        for (DurableProcess d : byId.values()) {
            if (all || !d.exit().isDone()) {
                out.add(d);
            }
        }
        out.sort(Comparator.comparingInt(DurableProcess::id));
        return out;
    }

    /**
     * CPU time and RSS of the whole tree of each running process among {@code ps} (one walk of
     * /proc for all of them), by process id; ended ones, and trees that are already gone, are
     * left out.
     */
    public Map<Integer, SessionUsage.Usage> treeUsage(List<DurableProcess> ps) {
        Map<Long, Integer> bySession = new java.util.HashMap<>();
        for (DurableProcess d : ps) {
            if (!d.exit().isDone()) {
                bySession.put(d.pid(), d.id()); // the pid is its session's id: it leads its own
            }
        }
        Map<Integer, SessionUsage.Usage> out = new java.util.HashMap<>();
        SessionUsage.of(bySession.keySet()).forEach((sid, u) -> out.put(bySession.get(sid), u));
        return out;
    }

    /** Shutdown: every journal goes (processes do not survive a daemon restart). */
    void close() {
        deadlines.values().forEach(f -> f.cancel(false));
        for (DurableProcess d : byId.values()) {
            d.journal().delete();
        }
        byId.clear();
        store.deleteAll();
    }
}
