package io.sandboxd.daemon.process;

import com.sun.jna.Memory;

/**
 * The memory every output read of the I/O loop goes through: one native read buffer, and one heap
 * array lent to the sinks chunk after chunk (see {@link OutputSink#onOutput}), instead of a new,
 * zeroed array per chunk. Used on the loop thread only, so one of each serves every process.
 */
final class OutputBuffers {
    private static final int CACHE_LINE = 64;

    /** Output is read here, then copied into {@link #heapChunk}. */
    private final Memory readBuffer;
    /** The read buffer as a direct ByteBuffer (one view, repositioned per chunk). */
    private final java.nio.ByteBuffer direct;
    /** Grows to the largest chunk seen. */
    private byte[] heapChunk = new byte[0];

    OutputBuffers(int readBufferSize) {
        readBuffer = alignedMemory(readBufferSize);
        direct = readBuffer.getByteBuffer(0, readBufferSize);
    }

    /**
     * {@code size} bytes that start on a cache line. malloc puts a buffer 16 bytes past one, and
     * the kernel's copy out of a pipe into such a destination ran at a third to a quarter of its
     * speed on the AMD EPYC hosts we measure on: reading 1 GiB of {@code head -c} output in 64
     * KiB reads cost 1.4-1.75 system CPU s at 16 bytes past a page, 0.38-0.43 on a page or a
     * cache line.
     */
    static Memory alignedMemory(int size) {
        return new Memory(size + CACHE_LINE).align(CACHE_LINE);
    }

    /** The read buffer's bytes [0, length) as a direct ByteBuffer, reused by every read. */
    java.nio.ByteBuffer direct(int length) {
        direct.limit(length).position(0);
        return direct;
    }

    Memory readBuffer() {
        return readBuffer;
    }

    int readBufferSize() {
        // the aligned Memory may be a few bytes larger; the view has exactly the size asked for
        return direct.capacity();
    }

    /** A heap array of at least {@code length} bytes, reused by every read. */
    byte[] heapChunk(int length) {
        if (heapChunk.length < length) {
            // Small chunks stay small; the first large one takes the whole read buffer at once.
            heapChunk = new byte[length <= LargeChunkBudget.BASE ? LargeChunkBudget.BASE : readBufferSize()];
        }
        return heapChunk;
    }
}
