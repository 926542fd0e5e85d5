package io.sandboxd.testkit.raw;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLSocketFactory;

/**
 * HTTP/1.1 over one plain socket, for what no well-behaved client sends or shows: exact bytes
 * (bad framing, a raw {@code %2F} or {@code ..} target, oversized heads), pipelined requests,
 * half-close, an RST instead of a FIN, a body that stalls or stops; and every byte of the response
 * (status line, headers in order, body by Content-Length, chunked or close, trailers, bytes after
 * a bodiless response). Keep-alive: several requests may share the connection; file bodies go out
 * with {@code sendfile}. Not thread-safe, except that {@link #exchange} writes from its own thread.
 */
public final class RawHttp implements AutoCloseable {
    /** Largest body {@link #read()} keeps in memory; stream bigger ones to a sink. */
    public static final int MAX_KEPT_BODY = 64 * 1024 * 1024;

    private static final int MAX_LINE = 64 * 1024;

    /** The peer closed (or reset) the connection before a complete response head. */
    public static final class ClosedWithoutResponse extends IOException {
        public ClosedWithoutResponse(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final SocketChannel channel;
    private final String hostPort;
    private final InputStream in;
    private final OutputStream out;

    private RawHttp(Socket socket, SocketChannel channel, String hostPort) throws IOException {
        this.socket = socket;
        this.channel = channel;
        this.hostPort = hostPort;
        this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        this.out = socket.getOutputStream();
    }

    /** A plain connection to {@code host:port}; {@code timeout} bounds the connect and every read. */
    public static RawHttp connect(String host, int port, Duration timeout) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            Socket s = ch.socket();
            s.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            s.setSoTimeout((int) timeout.toMillis());
            s.setTcpNoDelay(true);
            return new RawHttp(s, ch, host + ":" + port);
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    /** A connection to the host of {@code base} ({@code http} or {@code https}, default ports 80 / 443). */
    public static RawHttp connect(URI base, Duration timeout) throws IOException {
        boolean tls = "https".equalsIgnoreCase(base.getScheme());
        int port = base.getPort() > 0 ? base.getPort() : (tls ? 443 : 80);
        if (!tls) {
            return connect(base.getHost(), port, timeout);
        }
        Socket s = SSLSocketFactory.getDefault().createSocket();
        s.connect(new InetSocketAddress(base.getHost(), port), (int) timeout.toMillis());
        s.setSoTimeout((int) timeout.toMillis());
        s.setTcpNoDelay(true);
        return new RawHttp(s, null, base.getHost() + ":" + port);
    }

    /** One request on a new connection, its response, and the connection closed. */
    public static RawResponse exchange(String host, int port, RawRequest request, Duration timeout) throws IOException {
        try (RawHttp h = connect(host, port, timeout)) {
            try {
                h.send(request);
            } catch (IOException sendFailed) {
                // A server may answer before the whole body arrived (an early 400 for a bad upload)
                // and close: the answer is still in this side's receive buffer.
                try {
                    return h.read(request.method().equals("HEAD"));
                } catch (IOException readFailed) {
                    sendFailed.addSuppressed(readFailed);
                    throw sendFailed;
                }
            }
            return h.read(request.method().equals("HEAD"));
        }
    }

    public Socket socket() {
        return socket;
    }

    /** {@code host:port}, as a default {@code Host} header. */
    public String hostPort() {
        return hostPort;
    }

    public RawHttp send(RawRequest request) throws IOException {
        return send(request.toBytes(hostPort));
    }

    /** Sends the characters as bytes (ISO-8859-1: one byte each). */
    public RawHttp send(String latin1) throws IOException {
        return send(latin1.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Sends a file's bytes ({@code sendfile} on a plain connection). */
    public RawHttp sendFile(Path file) throws IOException {
        if (channel == null) {
            Files.copy(file, out);
            out.flush();
            return this;
        }
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = fc.size();
            for (long pos = 0; pos < size; ) {
                pos += fc.transferTo(pos, size - pos, channel);
            }
        }
        return this;
    }

    /** Half-close: a FIN after what was sent; the response can still be read. */
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /** Abortive close: an RST instead of a FIN, as when a client dies with unread data. */
    public void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    /**
     * Sends {@code head}, streams {@code body} from another thread, and reads the response
     * meanwhile: a server may answer (e.g. 507 or 400) before the body is complete, then close.
     */
    public RawResponse exchange(RawRequest head, InputStream body) throws IOException {
        send(head);
        Thread writer = new Thread(
                () -> {
                    try (body) {
                        body.transferTo(out);
                        out.flush();
                    } catch (IOException e) {
                        // the server answered early and closed; the response says what happened
                    }
                },
                "raw-http-body-writer");
        writer.setDaemon(true);
        writer.start();
        try {
            return read(head.method().equals("HEAD"));
        } finally {
            writer.interrupt();
        }
    }

    /** Reads one response to a request that may have a body, keeping the body (up to {@link #MAX_KEPT_BODY}). */
    public RawResponse read() throws IOException {
        return read(false, null);
    }

    /** Reads one response; {@code headRequest}: it answers a HEAD, so it has no body whatever it says. */
    public RawResponse read(boolean headRequest) throws IOException {
        return read(headRequest, null);
    }

    /**
     * Reads one response, streaming the body to {@code sink} (null: keep it in the response;
     * {@code OutputStream.nullOutputStream()}: count only). Interim 1xx responses are skipped,
     * except 101 (after which the socket carries another protocol).
     *
     * @throws ClosedWithoutResponse if the connection ended before a status line
     * @throws EOFException if it ended inside the head or the announced body
     */
    public RawResponse read(boolean headRequest, OutputStream sink) throws IOException {
        String statusLine = line(true);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException(
                    "not an HTTP status line: " + excerpt(statusLine.getBytes(StandardCharsets.ISO_8859_1), 120));
        }
        int status;
        try {
            status = Integer.parseInt(parts[1].trim());
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP status line: " + statusLine);
        }
        String reason = parts.length > 2 ? parts[2] : "";
        List<Map.Entry<String, String>> headers = fields();
        if (status >= 100 && status < 200 && status != 101) {
            return read(headRequest, sink);
        }
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        OutputStream to = sink != null ? sink : capped(kept);
        long length = 0;
        List<Map.Entry<String, String>> trailers = List.of();
        if (!(headRequest || status == 204 || status == 304 || status == 101)) {
            String te = value(headers, "Transfer-Encoding");
            String cl = value(headers, "Content-Length");
            if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
                List<Map.Entry<String, String>> t = new ArrayList<>();
                length = chunked(to, t);
                trailers = t;
            } else if (cl != null) {
                long n = Long.parseLong(cl.trim());
                length = copy(n, to);
                if (length < n) {
                    throw new EOFException("response ended after " + length + " of " + n + " announced body bytes");
                }
            } else {
                length = copy(Long.MAX_VALUE, to);
            }
        }
        return new RawResponse(statusLine, status, reason, headers, kept.toByteArray(), length, trailers);
    }

    /**
     * Bytes that arrive within {@code wait} (up to 64 KiB): e.g. what a server sent after a
     * response that must have no body. Empty when it sent nothing or closed.
     */
    public byte[] readAvailable(Duration wait) throws IOException {
        int old = socket.getSoTimeout();
        socket.setSoTimeout((int) Math.max(1, wait.toMillis()));
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try {
            byte[] buf = new byte[8192];
            int n;
            while (b.size() < 65536 && (n = in.read(buf)) > 0) {
                b.write(buf, 0, n);
            }
        } catch (SocketTimeoutException | SocketException e) {
            // nothing more came, or the server reset after answering
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(old);
            }
        }
        return b.toByteArray();
    }

    /**
     * True if the peer ends the exchange within the read timeout: it closes or resets the
     * connection, or sends anything (e.g. a 408); false if it stays silent and open.
     */
    public boolean closedByPeer() throws IOException {
        try {
            in.read(); // -1 (closed) or a byte: either way the peer ended the wait
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private List<Map.Entry<String, String>> fields() throws IOException {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (String l = line(false); !l.isEmpty(); l = line(false)) {
            int colon = l.indexOf(':');
            if (colon > 0) {
                out.add(Map.entry(
                        l.substring(0, colon).trim(), l.substring(colon + 1).trim()));
            }
        }
        return out;
    }

    private long chunked(OutputStream to, List<Map.Entry<String, String>> trailers) throws IOException {
        long total = 0;
        while (true) {
            String sizeLine = line(false);
            int semi = sizeLine.indexOf(';');
            long size;
            try {
                size = Long.parseLong((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("bad chunk size line: " + sizeLine);
            }
            if (size == 0) {
                trailers.addAll(fields());
                return total;
            }
            long n = copy(size, to);
            total += n;
            if (n < size) {
                throw new EOFException("chunked body ended inside a chunk");
            }
            line(false);
        }
    }

    private long copy(long max, OutputStream to) throws IOException {
        byte[] buf = new byte[64 * 1024];
        long done = 0;
        while (done < max) {
            int r;
            try {
                r = in.read(buf, 0, (int) Math.min(buf.length, max - done));
            } catch (SocketException e) {
                if (max == Long.MAX_VALUE) {
                    return done; // close-delimited body ended by a reset
                }
                throw e;
            }
            if (r < 0) {
                return done;
            }
            to.write(buf, 0, r);
            done += r;
        }
        return done;
    }

    /** A CRLF (or LF) terminated line without its terminator. */
    private String line(boolean first) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(128);
        int c;
        try {
            while ((c = in.read()) != -1) {
                if (c == '\n') {
                    break;
                }
                if (c != '\r') {
                    b.write(c);
                }
                if (b.size() > MAX_LINE) {
                    throw new IOException("response line over 64 KiB");
                }
            }
        } catch (SocketException e) {
            if (b.size() == 0 && first) {
                throw new ClosedWithoutResponse("connection reset before a response: " + e.getMessage());
            }
            throw e;
        }
        if (c == -1) {
            if (first && b.size() == 0) {
                throw new ClosedWithoutResponse("connection closed before a response");
            }
            throw new EOFException("connection closed inside the response head");
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private static String value(List<Map.Entry<String, String>> headers, String name) {
        for (Map.Entry<String, String> h : headers) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return null;
    }

    private static OutputStream capped(ByteArrayOutputStream b) {
        return new OutputStream() {
            @Override
            public void write(int x) throws IOException {
                write(new byte[] {(byte) x}, 0, 1);
            }

            @Override
            public void write(byte[] buf, int off, int len) throws IOException {
                if (b.size() + len > MAX_KEPT_BODY) {
                    throw new IOException("response body over " + MAX_KEPT_BODY + " bytes: stream it to a sink");
                }
                b.write(buf, off, len);
            }
        };
    }

    /** Bytes for humans reading a failure: printable ASCII as is, the rest escaped, cut at {@code max}. */
    public static String excerpt(byte[] b, int max) {
        StringBuilder sb = new StringBuilder("\"");
        int n = Math.min(b.length, max);
        for (int i = 0; i < n; i++) {
            int c = b[i] & 0xff;
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        sb.append((char) c);
                    } else {
                        sb.append(String.format("\\x%02x", c));
                    }
                }
            }
        }
        sb.append('"');
        if (b.length > max) {
            sb.append("... (").append(b.length).append(" bytes)");
        }
        return sb.toString();
    }
}
