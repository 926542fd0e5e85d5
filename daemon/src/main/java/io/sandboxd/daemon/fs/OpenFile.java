package io.sandboxd.daemon.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;

/** A regular file opened for reading, confined and race-free; the caller closes it. */
public record OpenFile(FileChannel channel, FileInfo info) implements AutoCloseable {
    @Override
    public void close() throws IOException {
        channel.close();
    }
}
