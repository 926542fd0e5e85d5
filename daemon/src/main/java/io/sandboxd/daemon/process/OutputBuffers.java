package io.sandboxd.daemon.process;

import com.sun.jna.Memory;

/**
 * The memory every output read of the I/O loop goes through: one native read buffer, and one heap
 * array lent to the sinks chunk after chunk (see {@link OutputSink#onOutput}), instead of a new,
 * zeroed array per chunk. Used on the loop thread only, so one of each serves every process.
 */
final class OutputBuffers {
    /** Output is read here, then copied into {@link #heapChunk}. */
    private final Memory readBuffer;
    /** The read buffer as a direct ByteBuffer (one view, repositioned per chunk). */
    private final java.nio.ByteBuffer direct;
    /** Grows to the largest chunk seen. */
    private byte[] heapChunk = new byte[0];

    OutputBuffers(int readBufferSize) {
        readBuffer = new Memory(readBufferSize);
        direct = readBuffer.getByteBuffer(0, readBufferSize);
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
        return (int) readBuffer.size();
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
