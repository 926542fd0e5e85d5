package io.sandboxd.daemon.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** A regular file opened for reading, confined and race-free; the caller closes it. */
public final class OpenFile implements AutoCloseable {
    /** From this size on, content is sent from memory-mapped windows ({@link MappedWindows}). */
    private static final long MAP_AT_LEAST = MappedWindows.WINDOW;

    private final FileChannel channel;
    private final FileInfo info;
    private final DirectBuffers buffers;

    OpenFile(FileChannel channel, FileInfo info, DirectBuffers buffers) {
        this.channel = channel;
        this.info = info;
        this.buffers = buffers;
    }

    /** As the file was when opened. */
    public FileInfo info() {
        return info;
    }

    /**
     * Sends {@code [first, first+length)} to {@code sink}: from memory-mapped windows when the
     * range is large and the sink takes buffers as they are (the kernel copies from the page
     * cache to the socket), by positional reads into a pooled direct buffer otherwise. A file
     * truncated underneath ends the content early: the client sees a short body and fails on
     * its Content-Length.
     */
    public void sendTo(long first, long length, ContentSink sink) throws IOException {
        long pos = first;
        long remaining = length;
        if (sink.writesBuffersAsIs() && remaining >= MAP_AT_LEAST && MappedWindows.available()) {
            // all but the tail mapped; the tail (under one window) goes through a buffer below, so
            // a sink that gathers small writes never copies (in Java) bytes of a mapping
            long mapped = remaining - remaining % MappedWindows.WINDOW;
            MappedWindows.send(channel, pos, mapped, sink);
            pos += mapped;
            remaining -= mapped;
        }
        ByteBuffer buf = buffers.acquire();
        try {
            while (remaining > 0) {
                buf.clear();
                if (remaining < buf.capacity()) {
                    buf.limit((int) remaining);
                }
                int n = channel.read(buf, pos);
                if (n < 0) {
                    break; // truncated underneath us
                }
                buf.flip();
                sink.write(buf);
                pos += n;
                remaining -= n;
            }
        } finally {
            buffers.release(buf);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
