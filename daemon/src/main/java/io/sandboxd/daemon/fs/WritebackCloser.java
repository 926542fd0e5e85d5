package io.sandboxd.daemon.fs;

import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Closes the files an archive upload extracted on a thread of its own, each after handing its
 * data to the kernel for writeback ({@code sync_file_range(SYNC_FILE_RANGE_WRITE)}, which does
 * not wait for the disk). Without it every byte of the archive sits dirty in the page cache until
 * the final {@code syncfs}, which then pays the whole disk write after the extraction; with it
 * the disk writes while later entries are extracted, on the other core, and the {@code syncfs}
 * only waits for the tail and the metadata. Durability still comes from that {@code syncfs}
 * alone: this is advice, and a file system that refuses it just gets the descriptor closed.
 * At most {@link #IN_FLIGHT} descriptors wait at any time (the extraction blocks beyond).
 */
final class WritebackCloser implements AutoCloseable {
    static final int IN_FLIGHT = 256;

    private static final int END = -1;

    private final BlockingQueue<Integer> queue = new ArrayBlockingQueue<>(IN_FLIGHT);
    private final Thread thread;

    WritebackCloser() {
        thread = new Thread(this::run, "sandboxd-archive-writeback");
        thread.setDaemon(true);
        thread.start();
    }

    /** Takes over {@code fd}, whose content is complete: it is closed here from now on. */
    void handOver(int fd) throws InterruptedIOException {
        try {
            queue.put(fd);
        } catch (InterruptedException e) {
            Posix.closeQuietly(fd);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while extracting the archive");
        }
    }

    /** Returns once every descriptor handed over is closed. */
    @Override
    public void close() {
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(END);
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // the descriptors must not leak: wait all the same
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        boolean advise = true;
        while (true) {
            int fd;
            try {
                fd = queue.take();
            } catch (InterruptedException e) {
                continue; // nobody interrupts this thread; END is the only way out
            }
            if (fd == END) {
                return;
            }
            if (advise) {
                try {
                    Posix.C.sync_file_range(fd, 0, 0, Posix.SYNC_FILE_RANGE_WRITE);
                } catch (com.sun.jna.LastErrorException | LinkageError e) {
                    advise = false; // this file system does not take the advice: just close
                }
            }
            Posix.closeQuietly(fd);
        }
    }
}
