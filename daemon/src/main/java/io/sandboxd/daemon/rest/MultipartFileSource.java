package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.ContentSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Locale;
import org.eclipse.jetty.http.MultiPart;
import org.eclipse.jetty.io.Content;

/**
 * The {@code file} part of a {@code multipart/form-data} body, streamed with Jetty's push
 * parser: only the current chunk is in memory, other parts are skipped (runtime-contract §2.4).
 */
final class MultipartFileSource implements ContentSource {
    private final InputStream in;
    private final String boundary;

    MultipartFileSource(InputStream in, String boundary) {
        this.in = in;
        this.boundary = boundary;
    }

    /** @return the boundary parameter of a multipart/form-data content type, null if not multipart/form-data */
    static String formDataBoundary(String contentType) throws SandboxException {
        if (contentType == null) {
            return null;
        }
        String[] parts = contentType.split(";");
        if (!parts[0].trim().toLowerCase(Locale.ROOT).equals("multipart/form-data")) {
            return null;
        }
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).trim().equalsIgnoreCase("boundary")) {
                String b = p.substring(eq + 1).trim();
                if (b.length() >= 2 && b.startsWith("\"") && b.endsWith("\"")) {
                    b = b.substring(1, b.length() - 1);
                }
                if (!b.isEmpty() && b.length() <= 70) {
                    return b;
                }
            }
        }
        throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "invalid multipart body: missing boundary");
    }

    /** Parts a body may have; beyond it 400. */
    static final int MAX_PARTS = 1000;
    /** The headers of one part, together; beyond it 400. */
    static final int MAX_PART_HEADER_BYTES = 8 * 1024;

    @Override
    public void writeTo(Sink sink) throws IOException, SandboxException {
        Listener l = new Listener(sink);
        MultiPart.Parser parser = new MultiPart.Parser(boundary, l);
        parser.setMaxParts(MAX_PARTS);
        // Jetty's default is no limit: one endless header line would grow the heap without bound
        parser.setPartHeadersMaxLength(MAX_PART_HEADER_BYTES);
        byte[] buf = new byte[RawBodySource.CHUNK];
        while (!l.complete && l.failure == null && l.sinkError == null) {
            int n = RawBodySource.read(in, buf);
            if (n < 0) {
                parser.parse(Content.Chunk.EOF);
                break;
            }
            parser.parse(Content.Chunk.from(ByteBuffer.wrap(buf, 0, n), false));
        }
        if (l.sinkError != null) {
            throw l.sinkError;
        }
        if (l.failure != null || !l.complete) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT,
                    "invalid multipart body: "
                            + (l.failure != null ? "malformed or truncated" : "no closing boundary"));
        }
        if (!l.fileSeen) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT, "multipart body is missing the required \"file\" part");
        }
    }

    private static final class Listener implements MultiPart.Parser.Listener {
        private final Sink sink;
        private boolean inFile;
        private boolean fileSeen;
        private String disposition;
        boolean complete;
        Throwable failure;
        IOException sinkError;

        Listener(Sink sink) {
            this.sink = sink;
        }

        @Override
        public void onPartBegin() {
            disposition = null;
        }

        @Override
        public void onPartHeader(String name, String value) {
            if ("content-disposition".equalsIgnoreCase(name)) {
                disposition = value;
            }
        }

        @Override
        public void onPartHeaders() {
            inFile = !fileSeen && "file".equals(formName(disposition));
            if (inFile) {
                fileSeen = true;
            }
        }

        @Override
        public void onPartContent(Content.Chunk chunk) {
            try {
                if (inFile && sinkError == null) {
                    sink.write(chunk.getByteBuffer());
                }
            } catch (IOException e) {
                sinkError = e;
            } finally {
                chunk.release();
            }
        }

        @Override
        public void onPartEnd() {
            inFile = false;
        }

        @Override
        public void onComplete() {
            complete = true;
        }

        @Override
        public void onFailure(Throwable t) {
            failure = t;
        }
    }

    static String formName(String disposition) {
        if (disposition == null) {
            return null;
        }
        for (String p : disposition.split(";")) {
            String t = p.trim();
            if (t.regionMatches(true, 0, "name=", 0, 5)) {
                String v = t.substring(5).trim();
                if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
                    v = v.substring(1, v.length() - 1);
                }
                return v;
            }
        }
        return null;
    }
}
