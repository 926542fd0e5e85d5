package io.sandboxd.daemon.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.nio.ByteBuffer;

/**
 * A reader thread's buffers for journal reads: the file is read into a direct buffer that starts
 * on a cache line, and each output event's data is copied from it into one array, lent to every
 * event the thread sends ({@code onNext} serialises the message into the transport's buffer
 * before it returns, as for a {@code process.v1} Start, so no array is allocated, zeroed and
 * collected per event).
 *
 * <p>Why not read into the array: a read into a heap buffer goes through the JDK's temporary
 * direct buffer, which {@code malloc} places 16 bytes past a cache line, and the kernel's copy
 * from the page cache into a destination that is not on a cache line ran at a fifth of its speed
 * on the AMD EPYC hosts we measure on: 0.40 instead of 0.08 CPU s per GiB for a 1 GiB journal
 * read in 508 KiB reads (dd with its page-aligned buffer: 0.09). Reading into this buffer and
 * copying into the array ourselves: bench durable replay, the daemon's reader thread 0.21 instead
 * of 0.49-0.53 CPU s/GiB, the daemon in all 0.65-0.72 instead of 0.93-1.03 (1 GiB replays
 * interleaved, load 6). Wrapping the direct buffer itself as the event's data instead of copying
 * cost more (0.84-0.92 in all): protobuf serialises a direct ByteString through a 4 KiB array.
 * The footprint is unchanged: the JDK kept a temporary direct buffer of the read's size per
 * thread before, and keeps none now.
 */
final class ReadBuffer {
    private static final int CACHE_LINE = 64;
    private static final ThreadLocal<ReadBuffer> OF_THREAD =
            ThreadLocal.withInitial(() -> new ReadBuffer(AttachPump.REPLAY_CHUNK));

    private final ByteBuffer direct;
    private final byte[] array;

    ReadBuffer(int capacity) {
        // alignedSlice trims both ends to whole cache lines: whole lines, one more for the start.
        int lines = (capacity + CACHE_LINE - 1) / CACHE_LINE;
        this.direct = ByteBuffer.allocateDirect((lines + 1) * CACHE_LINE)
                .alignedSlice(CACHE_LINE)
                .limit(capacity)
                .slice();
        this.array = new byte[capacity];
    }

    /** This thread's buffers. */
    static ReadBuffer ofThread() {
        return OF_THREAD.get();
    }

    /** The buffer to read up to {@code max} bytes into, empty, from its start. */
    ByteBuffer target(int max) {
        return direct.clear().limit(max);
    }

    /**
     * The first {@code n} bytes read, as data valid until the next call on this thread (it
     * shares this buffer's array).
     */
    ByteString data(int n) {
        direct.get(0, array, 0, n);
        return UnsafeByteOperations.unsafeWrap(array, 0, n);
    }
}
