package io.sandboxd.daemon.process;

import io.sandboxd.daemon.process.os.NativeIo;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Enlarges the pipe of a stream that turned out to be hot, so one read can fill a large chunk
 * (a 64 KiB pipe caps every read at 64 KiB, and a fast writer then blocks while the chunk is on
 * its way). Only a few pipes at a time: the kernel charges pipe capacity to the user, and a user
 * over {@code pipe-user-pages-soft} gets tiny pipes everywhere, including in their own shell.
 */
final class PipeGrowth {
    /** F_SETPIPE_SZ */
    private static final int F_SETPIPE_SZ = 1031;

    static final int GROWN_SIZE = 256 * 1024;
    /** Output that marks a stream as hot. */
    static final long HOT_AFTER_BYTES = 1024 * 1024;

    private final int maxGrown;
    private final AtomicInteger grown = new AtomicInteger();

    PipeGrowth(int maxGrown) {
        this.maxGrown = maxGrown;
    }

    /** @return true if {@code fd} now holds {@link #GROWN_SIZE}; the caller then owes {@link #released()} */
    boolean tryGrow(int fd) {
        if (grown.incrementAndGet() > maxGrown) {
            grown.decrementAndGet();
            return false;
        }
        if (NativeIo.fcntl(fd, F_SETPIPE_SZ, GROWN_SIZE) < 0) {
            grown.decrementAndGet(); // EPERM over the user's pipe quota, or EBUSY: keep the pipe as it is
            return false;
        }
        return true;
    }

    void released() {
        grown.decrementAndGet();
    }

    int grownNow() {
        return grown.get();
    }
}
