package io.sandboxd.bench;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * A minimal keep-alive HTTP/1.1 client so that the client is not the bottleneck: request bodies
 * from files go out with {@code transferTo} (sendfile), response bodies are drained into one
 * direct buffer. Handles Content-Length, chunked and close-delimited bodies.
 */
final class MiniHttp implements Closeable {
    record Response(int status, long bodyBytes, byte[] body) {
    }

    private final String host;
    private final int port;
    private final String hostHeader;
    private final String authHeader;
    private SocketChannel ch;
    private final ByteBuffer in = ByteBuffer.allocateDirect(1 << 18).flip();

    MiniHttp(URI base, String token) {
        this.host = base.getHost();
        this.port = base.getPort() > 0 ? base.getPort() : 80;
        this.hostHeader = host + ":" + port;
        this.authHeader = token == null ? "" : "Authorization: Bearer " + token + "\r\n";
    }

    private SocketChannel channel() throws IOException {
        if (ch == null || !ch.isOpen()) {
            ch = SocketChannel.open(new InetSocketAddress(host, port));
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            in.clear().flip();
        }
        return ch;
    }

    Response get(String path, boolean keepBody) throws IOException {
        return exchange("GET", path, null, null, keepBody);
    }

    Response put(String path, byte[] body) throws IOException {
        return exchange("PUT", path, body, null, false);
    }

    Response putFile(String path, Path file) throws IOException {
        return exchange("PUT", path, null, file, false);
    }

    Response exchangeDelete(String path) throws IOException {
        return exchange("DELETE", path, null, null, false);
    }

    private Response exchange(String method, String path, byte[] body, Path file, boolean keepBody) throws IOException {
        SocketChannel c = channel();
        try (FileChannel fc = file == null ? null : FileChannel.open(file, StandardOpenOption.READ)) {
            long len = body != null ? body.length : fc != null ? fc.size() : -1;
            StringBuilder h = new StringBuilder(160);
            h.append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: ").append(hostHeader).append("\r\n")
                    .append(authHeader);
            if (len >= 0) {
                h.append("Content-Type: application/octet-stream\r\nContent-Length: ").append(len).append("\r\n");
            }
            h.append("\r\n");
            byte[] head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
            if (body != null && body.length <= 65536) {
                writeFully(c, ByteBuffer.allocate(head.length + body.length).put(head).put(body).flip());
            } else {
                writeFully(c, ByteBuffer.wrap(head));
                if (body != null) {
                    writeFully(c, ByteBuffer.wrap(body));
                } else if (fc != null) {
                    long pos = 0;
                    while (pos < len) {
                        pos += fc.transferTo(pos, len - pos, c);
                    }
                }
            }
            return readResponse(method, keepBody);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private static void writeFully(SocketChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    private Response readResponse(String method, boolean keepBody) throws IOException {
        String status = readLine();
        if (!status.startsWith("HTTP/1.")) {
            throw new IOException("bad status line: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long contentLength = -1;
        boolean chunked = false;
        boolean close = false;
        String line;
        while (!(line = readLine()).isEmpty()) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> contentLength = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> close = value.equalsIgnoreCase("close");
                default -> {
                }
            }
        }
        ByteArrayOutputStream keep = keepBody || code >= 400 ? new ByteArrayOutputStream() : null;
        long n = 0;
        if (method.equals("HEAD") || code == 204 || code == 304 || code / 100 == 1) {
            n = 0;
        } else if (chunked) {
            while (true) {
                String sz = readLine();
                int semi = sz.indexOf(';');
                long size = Long.parseLong((semi >= 0 ? sz.substring(0, semi) : sz).trim(), 16);
                if (size == 0) {
                    while (!readLine().isEmpty()) {
                        // trailers
                    }
                    break;
                }
                n += drain(size, keep);
                readLine();
            }
        } else if (contentLength >= 0) {
            n = drain(contentLength, keep);
        } else {
            n = drain(Long.MAX_VALUE, keep);
            close = true;
        }
        if (close) {
            close();
        }
        return new Response(code, n, keep == null ? null : keep.toByteArray());
    }

    private long drain(long size, ByteArrayOutputStream keep) throws IOException {
        long left = size;
        while (left > 0) {
            if (!in.hasRemaining()) {
                in.clear();
                int r = ch.read(in);
                in.flip();
                if (r < 0) {
                    if (size == Long.MAX_VALUE) {
                        return size - left;
                    }
                    throw new EOFException("connection closed with " + left + " body bytes missing");
                }
            }
            int take = (int) Math.min(left, in.remaining());
            if (keep != null) {
                byte[] b = new byte[take];
                in.get(b);
                keep.write(b, 0, take);
            } else {
                in.position(in.position() + take);
            }
            left -= take;
        }
        return size;
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder(64);
        while (true) {
            if (!in.hasRemaining()) {
                in.clear();
                int r = ch.read(in);
                in.flip();
                if (r < 0) {
                    throw new EOFException("connection closed in headers");
                }
            }
            char ch0 = (char) (in.get() & 0xff);
            if (ch0 == '\n') {
                int l = sb.length();
                if (l > 0 && sb.charAt(l - 1) == '\r') {
                    sb.setLength(l - 1);
                }
                return sb.toString();
            }
            sb.append(ch0);
            if (sb.length() > 16384) {
                throw new IOException("header line too long");
            }
        }
    }

    @Override
    public void close() {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing
            }
            ch = null;
        }
    }
}
