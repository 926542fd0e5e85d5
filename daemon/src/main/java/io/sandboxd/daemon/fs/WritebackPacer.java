package io.sandboxd.daemon.fs;

/**
 * Starts the disk write of an upload while the rest of it is still arriving: after every
 * {@link #STEP} bytes, the range just written is handed to the kernel for writeback
 * ({@code sync_file_range(SYNC_FILE_RANGE_WRITE)}, which does not wait for the disk). Without it
 * the whole body sits dirty in the page cache until the final fsync, which then pays the full
 * disk time after the network time; with it the two overlap and the fsync only flushes the tail.
 * Durability still comes from that fsync alone; this is advice, and a file system that refuses
 * it (EINVAL, ENOSYS, ESPIPE) just gets none.
 */
final class WritebackPacer {
    static final long STEP = 8L * 1024 * 1024;

    /** The syscall, replaceable in tests; returns false when the file system refuses the advice. */
    interface RangeWriter {
        boolean startWriteback(long offset, long length);
    }

    private final RangeWriter writer;
    private long written;
    private long handedOver;
    private boolean refused;

    WritebackPacer(RangeWriter writer) {
        this.writer = writer;
    }

    static WritebackPacer forFd(int fd) {
        return new WritebackPacer((offset, length) -> {
            try {
                Posix.C.sync_file_range(fd, offset, length, Posix.SYNC_FILE_RANGE_WRITE);
                return true;
            } catch (com.sun.jna.LastErrorException | LinkageError e) {
                return false;
            }
        });
    }

    /** Call after {@code bytes} more were written at the end of the file. */
    void wrote(long bytes) {
        written += bytes;
        if (!refused && written - handedOver >= STEP) {
            if (writer.startWriteback(handedOver, written - handedOver)) {
                handedOver = written;
            } else {
                refused = true;
            }
        }
    }
}
