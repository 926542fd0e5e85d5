package io.sandboxd.daemon.process;

import java.util.concurrent.CompletableFuture;

/** One output stream of a process being delivered to its sink (a pipe on the I/O loop, or a PTY pump). */
interface OutputSource {
    /** Completes once the source delivered its last byte and released its descriptor. */
    CompletableFuture<Void> done();

    /**
     * The leader exited and the grace period passed: end as soon as nothing more is waiting
     * (what is left is held open by a background child, CONTRACT §1.3).
     */
    void expireGrace();
}
