package io.sandboxd.daemon.process.journal;

import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * One file of a stream's journal: bytes [start, end) of the stream. Appended to by the stream's
 * writer only while it is the current segment; read positionally by any number of readers.
 */
final class Segment {
    private final StreamJournal owner;
    final long start;
    final Path path;
    /** Open while the segment is the current one; null once sealed (readers open the file themselves). */
    volatile FileChannel channel;
    /** Why bytes before {@link #start} that no earlier segment holds are missing. */
    final JournalRead.GapCause holeBefore;
    /** Exclusive end; written under the owner's lock, read by readers under it too. */
    long end;

    Segment(StreamJournal owner, long start, Path path, FileChannel channel, JournalRead.GapCause holeBefore) {
        this.owner = owner;
        this.start = start;
        this.end = start;
        this.path = path;
        this.channel = channel;
        this.holeBefore = holeBefore;
    }

    StreamJournal owner() {
        return owner;
    }

    long size() {
        return end - start;
    }
}
