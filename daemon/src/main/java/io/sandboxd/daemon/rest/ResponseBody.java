package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.ContentSink;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.ee10.servlet.HttpOutput;

/** A response body as the sink of a download. */
final class ResponseBody {
    private ResponseBody() {}

    /**
     * Jetty's servlet stream takes a ByteBuffer as is (a blocking write straight to the socket,
     * no aggregation copy); any other stream gets bytes copied out.
     */
    static ContentSink of(OutputStream out) {
        if (out instanceof HttpOutput jetty) {
            return new ContentSink() {
                @Override
                public void write(ByteBuffer chunk) throws IOException {
                    jetty.write(chunk);
                }

                @Override
                public boolean writesBuffersAsIs() {
                    return true;
                }
            };
        }
        return new ContentSink() {
            @Override
            public void write(ByteBuffer chunk) throws IOException {
                byte[] b = new byte[chunk.remaining()];
                chunk.get(b);
                out.write(b);
            }

            @Override
            public boolean writesBuffersAsIs() {
                return false;
            }
        };
    }
}
