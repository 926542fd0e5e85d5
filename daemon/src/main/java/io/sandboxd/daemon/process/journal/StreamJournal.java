package io.sandboxd.daemon.process.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/**
 * The append-only journal of one output stream of one process: a run of segment files in the
 * state directory, never the output in memory. Offsets count every byte the process wrote to the
 * stream, journalled or not. Per-stream retention drops whole segments, oldest first; the
 * daemon-wide {@link JournalBudget} may drop them too. A write that fails (disk full, I/O error)
 * seals the segment: the bytes that could not be written are a hole (readers get a gap saying
 * so), the process is never blocked, and a new segment is tried again at most once per
 * {@link #RETRY_NANOS}.
 *
 * <p>One writer (the thread delivering the process's output), any number of readers. Appends and
 * reads take the lock only to update or look up segment bounds; file reads happen outside it.
 */
public final class StreamJournal {
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long MIN_SEGMENT = 4096;
    static final long MAX_SEGMENT = 64L * 1024 * 1024;

    private final Path dir;
    private final String name;
    private final long retention;
    private final long segmentSize;
    private final JournalBudget budget;
    private final ArrayDeque<Segment> segments = new ArrayDeque<>();
    private long written;
    private long retained;
    private long evicted;
    private long failedBytes;
    private Segment current;
    private JournalRead.GapCause nextHole = JournalRead.GapCause.RETENTION;
    private long retryAt;
    private boolean closed;
    /** False until {@link #record()}: appends only count bytes (a v1 Start nobody attached to). */
    private boolean recording;

    /**
     * @param retention bytes kept at most; whole segments of about an eighth of it are dropped
     */
    StreamJournal(Path dir, String name, long retention, JournalBudget budget, boolean recording) {
        this.dir = dir;
        this.recording = recording;
        this.nextHole = recording ? JournalRead.GapCause.RETENTION : JournalRead.GapCause.NOT_RECORDED;
        this.name = name;
        this.retention = retention;
        this.segmentSize = Math.max(MIN_SEGMENT, Math.min(MAX_SEGMENT, retention / 8));
        this.budget = budget;
    }

    /**
     * Appends {@code data[off, off+len)}: writes it to the current segment file before returning
     * (the array is lent by the I/O loop). Never throws and never blocks on readers.
     */
    public void append(byte[] data, int off, int len) {
        if (len > 0) {
            append(ByteBuffer.wrap(data, off, len));
        }
    }

    /**
     * Appends the bytes between the buffer's position and limit (a direct buffer is written to the
     * file without a copy); the buffer is lent for the call and left with position == limit.
     * Never throws and never blocks on readers.
     */
    public void append(ByteBuffer src) {
        int len = src.remaining();
        if (len <= 0) {
            return;
        }
        int limit = src.limit();
        synchronized (this) {
            if (closed || !recording) {
                written += len;
                src.position(limit);
                return;
            }
            int done = 0;
            while (done < len) {
                Segment s = writable();
                if (s == null) {
                    break;
                }
                int n = (int) Math.min(len - done, segmentSize - s.size());
                src.limit(src.position() + n);
                int w = writeFully(s, src);
                src.limit(limit);
                s.end += w;
                retained += w;
                written += w;
                done += w;
                budget.added(w);
                if (w < n) {
                    seal(System.nanoTime() + RETRY_NANOS);
                    break;
                }
                if (s.size() >= segmentSize) {
                    release(s); // full: the next byte opens the next segment
                    current = null;
                }
            }
            if (done < len) {
                failedBytes += len - done;
                written += len - done;
                nextHole = JournalRead.GapCause.WRITE_FAILED;
            }
            src.position(limit);
            while (retained > retention && segments.size() > 1) {
                drop(segments.peekFirst());
            }
        }
        budget.enforce();
    }

    /**
     * From now on appends are written to files; the bytes counted before are one hole
     * ({@link JournalRead.GapCause#NOT_RECORDED}). Idempotent.
     */
    public synchronized void record() {
        recording = true;
    }

    /** The segment to append to, opening one if needed; null while writes are failing. */
    private Segment writable() {
        if (current != null) {
            return current;
        }
        if (retryAt != 0 && System.nanoTime() - retryAt < 0) {
            return null;
        }
        Path p = dir.resolve(name + "-" + written + ".seg");
        FileChannel ch;
        try {
            ch = create(p);
        } catch (IOException | RuntimeException e) {
            retryAt = System.nanoTime() + RETRY_NANOS;
            return null;
        }
        Segment s = new Segment(this, written, p, ch, segments.isEmpty() && written == 0 ? null : nextHole);
        nextHole = JournalRead.GapCause.RETENTION;
        retryAt = 0;
        segments.addLast(s);
        current = s;
        budget.created(s);
        return s;
    }

    /** Creates the segment file, and the process's directory with the first one. */
    private FileChannel create(Path p) throws IOException {
        try {
            return FileChannel.open(
                    p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (java.nio.file.NoSuchFileException e) {
            Files.createDirectories(dir);
            return FileChannel.open(
                    p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
    }

    /** Writes what {@code b} holds; @return the bytes that reached the file. */
    private static int writeFully(Segment s, ByteBuffer b) {
        int start = b.position();
        try {
            while (b.hasRemaining()) {
                s.channel.write(b);
            }
        } catch (IOException | RuntimeException e) {
            // ENOSPC or an I/O error: what reached the file counts, the rest is a hole
        }
        return b.position() - start;
    }

    /** The current segment takes no more bytes; a new one may be tried from {@code retryAtNanos}. */
    private void seal(long retryAtNanos) {
        if (current != null) {
            release(current);
        }
        current = null;
        retryAt = retryAtNanos;
    }

    /**
     * The segment takes no more bytes: its descriptor is closed, so a stream holds one open file
     * at most (its current segment) however many segments it retains.
     */
    private static void release(Segment s) {
        FileChannel ch = s.channel;
        s.channel = null;
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // nothing to do
            }
        }
    }

    /** The stream ended (the process exited): its current segment's descriptor is closed. */
    public synchronized void seal() {
        if (current != null) {
            release(current);
            current = null;
        }
    }

    private void drop(Segment s) {
        segments.remove(s);
        if (s == current) {
            current = null;
        }
        retained -= s.size();
        evicted += s.size();
        budget.removed(s, s.size());
        closeQuietly(s);
    }

    /** The budget's eviction: @return false if {@code s} was no longer retained. */
    boolean evict(Segment s) {
        synchronized (this) {
            if (!segments.contains(s)) {
                return false;
            }
            drop(s);
            return true;
        }
    }

    /** Bytes the process wrote to this stream, journalled or not. */
    public synchronized long written() {
        return written;
    }

    /** The first offset still retained (== written when nothing is). */
    public synchronized long firstRetained() {
        for (Segment s : segments) {
            if (s.end > s.start) {
                return s.start;
            }
        }
        return written;
    }

    /** Bytes dropped by retention or the daemon-wide cap so far. */
    public synchronized long evictedBytes() {
        return evicted;
    }

    /** Bytes that could not be written (disk full, I/O error). */
    public synchronized long failedBytes() {
        return failedBytes;
    }

    /**
     * One reader's open sealed segment: a reader going through sealed segments opens each file
     * once instead of once per read. Confined to its reader; {@link #close()} when done.
     */
    public static final class Cursor implements AutoCloseable {
        private Segment segment;
        private FileChannel channel;

        FileChannel channelFor(Segment s) {
            return segment == s ? channel : null;
        }

        void hold(Segment s, FileChannel ch) {
            close();
            segment = s;
            channel = ch;
        }

        @Override
        public void close() {
            FileChannel ch = channel;
            segment = null;
            channel = null;
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException e) {
                    // nothing to do
                }
            }
        }
    }

    /**
     * Reads from {@code offset} into {@code dst} (up to its remaining bytes, from its position
     * on; its position then ends after them, its limit there too), or reports the gap that starts there, or NONE if nothing was written there yet. A read
     * from a sealed segment keeps that file open in {@code cursor} (null: none) for the next read,
     * so a reader going through sealed segments opens each file once. A direct {@code dst} is
     * read into without the JDK's copy through a temporary direct buffer.
     *
     * @throws OffsetOutOfRangeException if {@code offset} is beyond what was written
     */
    public JournalRead read(long offset, ByteBuffer dst, Cursor cursor) throws OffsetOutOfRangeException {
        int start = dst.position();
        int limit = dst.limit();
        while (true) {
            dst.limit(limit).position(start);
            Segment s;
            long end;
            synchronized (this) {
                if (offset > written || offset < 0) {
                    throw new OffsetOutOfRangeException(
                            "offset " + offset + " of " + name + " is beyond the " + written + " bytes written");
                }
                if (offset == written) {
                    return JournalRead.NONE;
                }
                s = locate(offset);
                if (s == null) {
                    return JournalRead.gap(
                            written - offset,
                            nextHole == JournalRead.GapCause.NOT_RECORDED
                                    ? JournalRead.GapCause.NOT_RECORDED
                                    : JournalRead.GapCause.WRITE_FAILED);
                }
                if (s.start > offset) {
                    JournalRead.GapCause cause = s.holeBefore != null ? s.holeBefore : JournalRead.GapCause.RETENTION;
                    if (offset < firstStart() && evicted > 0) {
                        cause = JournalRead.GapCause.RETENTION;
                    }
                    return JournalRead.gap(s.start - offset, cause);
                }
                end = s.end;
            }
            int n = (int) Math.min(dst.remaining(), end - offset);
            dst.limit(start + n);
            FileChannel shared = s.channel;
            if (shared == null && cursor != null) {
                shared = cursor.channelFor(s);
            }
            FileChannel ch = shared;
            try {
                if (ch == null) {
                    ch = FileChannel.open(s.path, StandardOpenOption.READ);
                    if (cursor != null) {
                        cursor.hold(s, ch);
                        shared = ch;
                    }
                }
                while (dst.hasRemaining()) {
                    int r = ch.read(dst, offset - s.start + dst.position() - start);
                    if (r < 0) {
                        break;
                    }
                }
            } catch (ClosedChannelException e) {
                if (cursor != null && cursor.channelFor(s) == ch) {
                    cursor.close();
                }
                continue; // sealed or evicted meanwhile: look again (now a gap if evicted)
            } catch (java.nio.file.NoSuchFileException e) {
                evict(s); // evicted meanwhile, or removed behind our back: either way a gap
                continue;
            } catch (IOException e) {
                if (!stillRetained(s)) {
                    continue;
                }
                throw new java.io.UncheckedIOException("journal of " + name + " unreadable", e);
            } finally {
                if (ch != null && ch != shared) {
                    try {
                        ch.close();
                    } catch (IOException e) {
                        // nothing to do
                    }
                }
            }
            if (dst.position() - start < n) {
                if (!stillRetained(s)) {
                    continue;
                }
                throw new java.io.UncheckedIOException(
                        new IOException("journal file of " + name + " is shorter than recorded"));
            }
            return JournalRead.data(n);
        }
    }

    private synchronized boolean stillRetained(Segment s) {
        return segments.contains(s);
    }

    private long firstStart() {
        Segment f = segments.peekFirst();
        return f == null ? written : f.start;
    }

    /** The first segment ending after {@code offset}, or null. */
    private Segment locate(long offset) {
        Iterator<Segment> it = segments.descendingIterator();
        Segment found = null;
        while (it.hasNext()) {
            Segment s = it.next();
            if (s.end > offset) {
                found = s;
            } else {
                break;
            }
        }
        return found;
    }

    /** Closes and deletes every segment; later appends only count bytes. Idempotent. */
    public void close() {
        synchronized (this) {
            closed = true;
            while (!segments.isEmpty()) {
                drop(segments.peekFirst());
            }
            evicted = 0;
        }
    }

    private static void closeQuietly(Segment s) {
        release(s);
        try {
            Files.deleteIfExists(s.path);
        } catch (IOException e) {
            // the directory goes when the process is forgotten, and at daemon start
        }
    }
}
