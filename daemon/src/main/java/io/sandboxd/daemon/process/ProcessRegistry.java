package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live processes: the ids of Start processes that can still be addressed, and the
 * {@code --max-processes} cap over every live process, Execute's too. Thread-safe; every method
 * is a short critical section on concurrent maps and counters, called from transport threads
 * and from whichever thread ends a process.
 */
public final class ProcessRegistry {
    private final int maxProcesses;
    private final AtomicInteger nextId = new AtomicInteger();
    /** Places taken under the cap: reserved for a spawn, or held by a process until released. */
    private final AtomicInteger live = new AtomicInteger();

    private final Map<Integer, ManagedProcess> addressable = new ConcurrentHashMap<>();
    private final Set<ManagedProcess> admitted = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public ProcessRegistry(int maxProcesses) {
        this.maxProcesses = maxProcesses;
    }

    /**
     * Takes one place under the cap for a spawn about to happen. The caller then either
     * {@link #admit}s the spawned process into that place or gives it back with {@link #unreserve()}.
     *
     * @throws SandboxException UNAVAILABLE once closed, RESOURCE_EXHAUSTED when every place is taken
     */
    void reserve() throws SandboxException {
        if (closed) {
            throw new SandboxException(ErrorKind.UNAVAILABLE, "sandboxd is shutting down");
        }
        if (live.incrementAndGet() > maxProcesses) {
            live.decrementAndGet();
            throw new SandboxException(
                    ErrorKind.RESOURCE_EXHAUSTED,
                    "too many processes: the limit is " + maxProcesses + " (--max-processes)");
        }
    }

    /** Gives back a place {@link #reserve()} took for a spawn that failed. */
    void unreserve() {
        live.decrementAndGet();
    }

    /** A new Start id: positive, never reused within the daemon's life. */
    int nextId() {
        return nextId.incrementAndGet();
    }

    /** Counts a spawned process in the place reserved for it, until {@link #release}. */
    void admit(ManagedProcess p) {
        admitted.add(p);
    }

    /** Makes an admitted Start process findable by its id, until {@link #forget}. */
    void publish(ManagedProcess p) {
        addressable.put(p.id(), p);
    }

    /** @throws SandboxException NOT_FOUND unless a Start process with this id is still streaming */
    ManagedProcess find(int id) throws SandboxException {
        ManagedProcess p = addressable.get(id);
        if (p == null) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "process " + id + " not found");
        }
        return p;
    }

    /** The id stops resolving; the process still holds its place. Idempotent. */
    void forget(ManagedProcess p) {
        if (p.id() != 0) {
            addressable.remove(p.id(), p);
        }
    }

    /**
     * The process no longer counts: its id stops resolving and its place is free again.
     *
     * @return true for the one call that freed the place
     */
    boolean release(ManagedProcess p) {
        forget(p);
        if (admitted.remove(p)) {
            live.decrementAndGet();
            return true;
        }
        return false;
    }

    /** @return the places taken: live processes and spawns under way */
    int liveCount() {
        return live.get();
    }

    /** Every admitted process not yet released, at the moment of the call. */
    List<ManagedProcess> snapshot() {
        return new ArrayList<>(admitted);
    }

    /** From now on {@link #reserve()} refuses (shutdown); processes already admitted stay. */
    void close() {
        closed = true;
    }
}
