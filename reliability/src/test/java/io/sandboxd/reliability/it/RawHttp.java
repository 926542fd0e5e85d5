package io.sandboxd.reliability.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP/1.1 over a raw socket, for requests no well-behaved client sends: malformed request lines
 * and headers, stalled or truncated bodies, early-closing clients.
 */
final class RawHttp implements AutoCloseable {
    record Response(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** The peer closed the connection (or reset it) before a complete response head. */
    static final class ClosedWithoutResponse extends IOException {
        ClosedWithoutResponse(String m) {
            super(m);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawHttp(int port, Duration readTimeout) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout((int) readTimeout.toMillis());
        in = new java.io.BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    Socket socket() {
        return socket;
    }

    void send(String s) throws IOException {
        send(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    void send(byte[] b) throws IOException {
        out.write(b);
        out.flush();
    }

    /** Abortive close: an RST instead of a FIN, as when a client process dies with unread data. */
    void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /**
     * Sends a request head, streams {@code body} from another thread, and reads the response
     * meanwhile: a server may answer (e.g. 507) before the body is complete and then close.
     */
    Response exchange(String head, InputStream body) throws IOException {
        send(head);
        Thread writer = new Thread(() -> {
            try (body) {
                body.transferTo(out);
                out.flush();
            } catch (IOException e) {
                // the server closed or reset after answering early; the response tells what happened
            }
        }, "raw-http-body-writer");
        writer.setDaemon(true);
        writer.start();
        try {
            return read();
        } finally {
            writer.interrupt();
        }
    }

    /** Reads one response (Content-Length, chunked, or until close; none for HEAD/204/304). */
    Response read(boolean headRequest) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new ClosedWithoutResponse("connection closed before a response");
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        Map<String, String> headers = new TreeMap<>();
        for (String h = line(); h != null && !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            if (colon > 0) {
                headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
            }
        }
        byte[] body;
        if (headRequest || status == 204 || status == 304 || (status >= 100 && status < 200)) {
            body = new byte[0];
        } else if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = chunked();
        } else {
            body = in.readAllBytes();
        }
        return new Response(status, headers, body);
    }

    Response read() throws IOException {
        return read(false);
    }

    /**
     * True if the peer ends the exchange within the socket's read timeout: it closes or resets
     * the connection, or sends anything (a response such as 408).
     */
    boolean closedByPeer() throws IOException {
        try {
            byte[] buf = new byte[8192];
            while (true) {
                int n = in.read(buf);
                if (n != 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    private byte[] chunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line();
            if (size == null) {
                throw new IOException("EOF in chunked body");
            }
            int semi = size.indexOf(';');
            int n = Integer.parseInt((semi >= 0 ? size.substring(0, semi) : size).trim(), 16);
            if (n == 0) {
                for (String t = line(); t != null && !t.isEmpty(); t = line()) {
                    // trailers
                }
                return body.toByteArray();
            }
            body.write(in.readNBytes(n));
            line();
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        try {
            while ((c = in.read()) >= 0) {
                if (c == '\n') {
                    String s = b.toString(StandardCharsets.ISO_8859_1);
                    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
                }
                b.write(c);
            }
        } catch (java.net.SocketException e) {
            if (b.size() == 0) {
                return null; // reset before anything arrived
            }
            throw e;
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }
}
