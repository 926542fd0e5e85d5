package io.sandboxd.daemon.fs;

import io.sandboxd.daemon.errors.SandboxException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Pushes an upload's bytes into a sink, in bounded chunks. Transports implement it (raw body,
 * multipart part); a failure reading the client is reported as a {@link SandboxException}
 * (a client error), a failure of the sink as the {@link IOException} the sink threw.
 */
@FunctionalInterface
public interface ContentSource {
    interface Sink {
        void write(ByteBuffer chunk) throws IOException;
    }

    void writeTo(Sink sink) throws IOException, SandboxException;
}
