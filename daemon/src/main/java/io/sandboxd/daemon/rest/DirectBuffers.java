package io.sandboxd.daemon.rest;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * Reused direct buffers for moving file content between sockets and files. A direct buffer
 * goes to the kernel as is (a heap array would be copied into a temporary direct buffer on
 * every read and write), and large buffers mean few system calls per MiB. Bounded: at most
 * {@code retained} buffers are kept between requests; busier moments allocate and drop extras.
 */
final class DirectBuffers {
    private final int size;
    private final ArrayBlockingQueue<ByteBuffer> free;

    DirectBuffers(int size, int retained) {
        this.size = size;
        this.free = new ArrayBlockingQueue<>(retained);
    }

    int size() {
        return size;
    }

    /** A cleared buffer of {@link #size()} bytes; give it back with {@link #release}. */
    ByteBuffer acquire() {
        ByteBuffer b = free.poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(size);
    }

    void release(ByteBuffer b) {
        free.offer(b); // full: dropped, the GC frees it
    }
}
