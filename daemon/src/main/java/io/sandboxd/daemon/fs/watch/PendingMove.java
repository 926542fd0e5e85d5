package io.sandboxd.daemon.fs.watch;

/**
 * The first half of a rename ({@code IN_MOVED_FROM}), waiting for its {@code IN_MOVED_TO} with the
 * same cookie. The kernel queues both halves together, so the wait is short; a rename out of the
 * watched directories never gets its second half and becomes a deletion.
 */
record PendingMove(DirNode dir, String name, int cookie, boolean directory, long deadlineNanos) {}
