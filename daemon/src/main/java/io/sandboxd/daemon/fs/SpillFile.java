package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An unnamed scratch file for sorting a large listing: {@code O_TMPFILE} in the sandbox root, so
 * it counts against the sandbox's own volume, is never visible and vanishes with its descriptor,
 * even on a crash. Where the root's filesystem has no O_TMPFILE, a temp file in
 * {@code java.io.tmpdir}, unlinked as soon as it is open.
 */
final class SpillFile implements AutoCloseable {
    private final FileChannel channel;
    private long size;

    private SpillFile(FileChannel channel) {
        this.channel = channel;
    }

    static SpillFile create(int rootFd) throws IOException {
        int fd;
        try {
            fd = Posix.openat(rootFd, ".", Posix.O_TMPFILE | Posix.O_RDWR, 0600);
        } catch (LastErrorException e) {
            return inTempDirectory();
        }
        try {
            return new SpillFile(FileChannel.open(Posix.fdPath(fd), StandardOpenOption.READ, StandardOpenOption.WRITE));
        } finally {
            Posix.closeQuietly(fd);
        }
    }

    private static SpillFile inTempDirectory() throws IOException {
        Path p = Files.createTempFile("sandboxd-listing-", ".tmp");
        try {
            return new SpillFile(FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE));
        } finally {
            Files.deleteIfExists(p);
        }
    }

    /** Appends {@code buf}; @return where it starts */
    long append(ByteBuffer buf) throws IOException {
        long at = size;
        while (buf.hasRemaining()) {
            size += channel.write(buf, size);
        }
        return at;
    }

    long size() {
        return size;
    }

    /** Reads into {@code buf} from {@code position}; @return bytes read, -1 at the end */
    int read(ByteBuffer buf, long position) throws IOException {
        return channel.read(buf, position);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
