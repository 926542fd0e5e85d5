package io.sandboxd.daemon.fs;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * Reused direct buffers for moving file content between sockets and files. A direct buffer
 * goes to the kernel as is (a heap array would be copied into a temporary direct buffer on
 * every read and write), and large buffers mean few system calls per MiB. Bounded: at most
 * {@code retained} buffers are kept between requests; busier moments allocate and drop extras.
 */
public final class DirectBuffers {
    /**
     * File content moves through these in both directions: 256 KiB per read or write system
     * call, direct so the JDK makes no copy of its own; a few are kept for the next requests
     * (~1 MiB).
     */
    private static final int FILE_CONTENT_BUFFER = 256 * 1024;

    private static final int FILE_CONTENT_RETAINED = 4;

    private final int size;
    private final ArrayBlockingQueue<ByteBuffer> free;

    public DirectBuffers(int size, int retained) {
        this.size = size;
        this.free = new ArrayBlockingQueue<>(retained);
    }

    /** The one pool downloads read into and uploads gather in (see the constants). */
    public static DirectBuffers forFileContent() {
        return new DirectBuffers(FILE_CONTENT_BUFFER, FILE_CONTENT_RETAINED);
    }

    /** A cleared buffer of {@code size} bytes; give it back with {@link #release}. */
    public ByteBuffer acquire() {
        ByteBuffer b = free.poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(size);
    }

    public void release(ByteBuffer b) {
        free.offer(b); // full: dropped, the GC frees it
    }
}
