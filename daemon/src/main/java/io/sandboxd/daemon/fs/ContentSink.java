package io.sandboxd.daemon.fs;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Takes a download's bytes, in order: the mirror of {@link ContentSource}. Transports implement
 * it over their response body. A buffer is lent for the call only: a mapped window is unmapped
 * and a pooled buffer reused as soon as {@link #write} returns.
 */
public interface ContentSink {
    /** Writes every remaining byte of {@code chunk}, blocking until it is handed on. */
    void write(ByteBuffer chunk) throws IOException;

    /**
     * True when {@link #write} gives a buffer to the socket as it is. Only such a sink is sent
     * memory-mapped windows: one that copied them in Java would fault every page into the JVM.
     */
    boolean writesBuffersAsIs();
}
