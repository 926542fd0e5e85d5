package io.sandboxd.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * An open file download: the response headers ({@link #info()}) and the body as a stream, read
 * straight from the connection (nothing is buffered beyond the HTTP client's small window).
 * Close it, also when not reading to the end: that releases the connection.
 */
public final class FileDownload implements AutoCloseable {
    private final FileInfo info;
    private final InputStream body;

    FileDownload(FileInfo info, InputStream body) {
        this.info = info;
        this.body = body;
    }

    public FileInfo info() {
        return info;
    }

    /** The body; its IOExceptions are transport failures (the connection broke). */
    public InputStream body() {
        return body;
    }

    /** Copies the rest of the body to {@code out}; @return the bytes copied. */
    public long transferTo(OutputStream out) throws IOException {
        return body.transferTo(out);
    }

    @Override
    public void close() {
        try {
            body.close();
        } catch (IOException ignored) {
            // closing aborts the exchange; nothing to report
        }
    }
}
