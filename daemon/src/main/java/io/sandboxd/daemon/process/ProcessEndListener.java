package io.sandboxd.daemon.process;

/**
 * How a process tells whoever started it that it ended, without knowing who that is. Both are
 * called once, in this order, on the thread that delivers the process's exit.
 */
interface ProcessEndListener {
    /** Its exit is about to reach the sink: the id must stop resolving first, so a client that saw the exit gets NOT_FOUND. */
    void exiting(ManagedProcess p);

    /** Its exit was delivered (or the sink threw): it no longer counts as live. */
    void ended(ManagedProcess p);
}
