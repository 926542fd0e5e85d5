package io.sandboxd.daemon.process;

import io.sandboxd.daemon.process.os.SessionSweeper;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The journal of sessions the core created that may still have members. Background children may
 * outlive their stream (with or without holding its pipes); shutdown kills whatever is left of
 * every session. Pruned against /proc as it grows, so a long-lived daemon does not keep every pid.
 */
final class SessionJournal {
    private static final int PRUNE_THRESHOLD = 4096;

    private final Set<Long> sessions = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean pruning = new AtomicBoolean();
    private final Executor pruner;

    /** @param pruner where the /proc scan runs, off the caller's thread */
    SessionJournal(Executor pruner) {
        this.pruner = pruner;
    }

    /** @param sessionId the pid of a leader the core spawned in its own session */
    void add(long sessionId) {
        sessions.add(sessionId);
        if (sessions.size() > PRUNE_THRESHOLD && pruning.compareAndSet(false, true)) {
            pruner.execute(() -> {
                try {
                    sessions.retainAll(SessionSweeper.liveSessions(Set.copyOf(sessions)));
                } finally {
                    pruning.set(false);
                }
            });
        }
    }

    /** SIGKILL to every process still in one of the sessions. */
    void killAll() {
        SessionSweeper.killSessions(Set.copyOf(sessions));
    }
}
