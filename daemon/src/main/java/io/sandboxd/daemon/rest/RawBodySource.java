package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.ContentSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/** The request body as the file's content, streamed in 64 KiB chunks (CONTRACT §2.4). */
final class RawBodySource implements ContentSource {
    static final int CHUNK = 64 * 1024;
    private final InputStream in;

    RawBodySource(InputStream in) {
        this.in = in;
    }

    @Override
    public void writeTo(Sink sink) throws IOException, SandboxException {
        byte[] buf = new byte[CHUNK];
        while (true) {
            int n = read(in, buf);
            if (n < 0) {
                return;
            }
            sink.write(ByteBuffer.wrap(buf, 0, n));
        }
    }

    /** A client that stops sending is a client error, never a 5xx. */
    static int read(InputStream in, byte[] buf) throws SandboxException {
        try {
            return in.read(buf);
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "request body was cut short; nothing was written");
        }
    }
}
