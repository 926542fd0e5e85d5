package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.ContentSource;
import io.sandboxd.daemon.fs.DirectBuffers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.util.Blocker;

/**
 * The request body as the file's content (runtime-contract §2.4), read as Jetty's own network buffers
 * (no copy into a byte[] as the servlet stream would make). Large chunks go to the file as they
 * are; small ones are gathered into one large direct buffer, so the file gets a few large writes
 * instead of one per network read. Bounded: one buffer per upload; a body that trickles is cut
 * off ({@link MinimumRate}).
 */
final class RawBodySource implements ContentSource {
    /** Read size of the multipart parser's stream. */
    static final int CHUNK = 64 * 1024;
    /** A network chunk at least this large is written as is rather than gathered. */
    static final int DIRECT_WRITE = 32 * 1024;
    /** How much of a body is still read (and dropped) after the file write failed. */
    static final long DISCARD_LIMIT = 64L << 20;

    private final Content.Source body;
    private final DirectBuffers buffers;
    private final MinimumRate rate;

    RawBodySource(Content.Source body, DirectBuffers buffers, MinimumRate rate) {
        this.body = body;
        this.buffers = buffers;
        this.rate = rate;
    }

    @Override
    public void writeTo(Sink sink) throws IOException, SandboxException {
        try {
            copy(sink);
        } catch (IOException e) {
            // the file side failed (e.g. disk full): read and drop the rest of the body, so the
            // client finishes sending and reads our 507 instead of a reset connection
            discardRest();
            throw e;
        }
    }

    /** Bounded: at most {@link #DISCARD_LIMIT} bytes and only while the body keeps the minimum rate. */
    private void discardRest() {
        long discarded = 0;
        try {
            while (discarded <= DISCARD_LIMIT) {
                Content.Chunk chunk = nextChunk();
                try {
                    if (Content.Chunk.isFailure(chunk)) {
                        return;
                    }
                    int n = chunk.remaining();
                    discarded += n;
                    received(n);
                    if (chunk.isLast()) {
                        return;
                    }
                } finally {
                    chunk.release();
                }
            }
        } catch (SandboxException e) {
            // too slow or cut short: Jetty closes the connection
        }
    }

    /** The next chunk of the body, waiting (at the minimum rate) while none is there. */
    private Content.Chunk nextChunk() throws SandboxException {
        while (true) {
            Content.Chunk chunk = body.read();
            if (chunk != null) {
                return chunk;
            }
            awaitContent();
        }
    }

    private void copy(Sink sink) throws IOException, SandboxException {
        ByteBuffer out = buffers.acquire();
        try {
            while (true) {
                Content.Chunk chunk = nextChunk();
                try {
                    if (Content.Chunk.isFailure(chunk)) {
                        throw cutShort();
                    }
                    ByteBuffer in = chunk.getByteBuffer();
                    received(in.remaining());
                    if (in.remaining() >= DIRECT_WRITE) {
                        if (out.position() > 0) {
                            drain(out, sink); // keeps the file's byte order
                        }
                        sink.write(in); // already large: straight to the file, no copy
                    }
                    while (in.hasRemaining()) {
                        if (!out.hasRemaining()) {
                            drain(out, sink);
                        }
                        int n = Math.min(in.remaining(), out.remaining());
                        out.put(out.position(), in, in.position(), n);
                        out.position(out.position() + n);
                        in.position(in.position() + n);
                    }
                    if (chunk.isLast()) {
                        break;
                    }
                } finally {
                    chunk.release();
                }
            }
            if (out.position() > 0) {
                drain(out, sink);
            }
        } finally {
            buffers.release(out);
        }
    }

    private static void drain(ByteBuffer out, Sink sink) throws IOException {
        out.flip();
        sink.write(out);
        out.clear();
    }

    private void awaitContent() throws SandboxException {
        try (Blocker.Runnable ready = Blocker.runnable()) {
            body.demand(ready);
            ready.block();
        } catch (IOException e) {
            throw cutShort();
        }
    }

    private void received(int n) throws SandboxException {
        try {
            rate.received(n);
        } catch (MinimumRateInputStream.TooSlow e) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, e.getMessage());
        }
    }

    private static SandboxException cutShort() {
        return new SandboxException(ErrorKind.INVALID_ARGUMENT, "request body was cut short; nothing was written");
    }

    /** A client that stops sending is a client error, never a 5xx. */
    static int read(InputStream in, byte[] buf) throws SandboxException {
        try {
            return in.read(buf);
        } catch (MinimumRateInputStream.TooSlow e) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, e.getMessage());
        } catch (IOException e) {
            throw cutShort();
        }
    }
}
