package io.sandboxd.conformance.client;

import javax.net.ssl.SSLSocketFactory;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A deliberately small HTTP/1.1 client over a plain socket. The request target is sent byte for
 * byte as given, so the suite can send {@code /v1/files/a%2Fb}, {@code %2E%2E} or a literal
 * {@code ..} that every general-purpose client would normalise or reject. One connection per
 * request ({@code Connection: close}), so a broken response cannot poison the next check.
 */
public final class RawHttpClient {
    /** Largest body the suite reads; listing and file checks stay far below it. */
    static final int MAX_BODY = 64 * 1024 * 1024;

    private final String host;
    private final int port;
    private final boolean tls;
    private final String basePath;
    private final String token;
    private final int timeoutMillis;

    public RawHttpClient(URI base, String token, int timeoutMillis) {
        this.host = base.getHost();
        this.tls = "https".equalsIgnoreCase(base.getScheme());
        this.port = base.getPort() > 0 ? base.getPort() : (tls ? 443 : 80);
        String p = base.getRawPath() == null ? "" : base.getRawPath();
        this.basePath = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
        this.token = token;
        this.timeoutMillis = timeoutMillis;
    }

    public RawHttpClient withToken(String newToken) {
        return new RawHttpClient(URI.create((tls ? "https" : "http") + "://" + host + ":" + port + basePath), newToken, timeoutMillis);
    }

    public String hostPort() {
        return host + ":" + port;
    }

    public HttpResult get(String target, String... headers) throws IOException {
        return send("GET", target, null, headers);
    }

    public HttpResult head(String target, String... headers) throws IOException {
        return send("HEAD", target, null, headers);
    }

    public HttpResult put(String target, byte[] body, String... headers) throws IOException {
        return send("PUT", target, body, headers);
    }

    public HttpResult delete(String target, String... headers) throws IOException {
        return send("DELETE", target, null, headers);
    }

    /**
     * Sends one request. {@code target} is the raw request target under the base path, e.g.
     * {@code /v1/files/a%2Fb}; {@code headers} are name, value pairs.
     */
    public HttpResult send(String method, String target, byte[] body, String... headers) throws IOException {
        try (Socket s = open()) {
            OutputStream out = s.getOutputStream();
            out.write(head(method, target, body == null ? (method.equals("PUT") ? 0 : -1) : body.length, headers));
            if (body != null) {
                out.write(body);
            }
            out.flush();
            return read(method + " " + target, method, s);
        }
    }

    /**
     * Starts a request whose body the caller writes (or abandons) itself: returns the open socket
     * after the head. Used to test in-flight and aborted uploads.
     */
    public Socket startUpload(String target, long contentLength, String... headers) throws IOException {
        Socket s = open();
        s.getOutputStream().write(head("PUT", target, contentLength, headers));
        s.getOutputStream().flush();
        return s;
    }

    /** Reads the response of a request started with {@link #startUpload}. */
    public HttpResult finish(Socket s, String description) throws IOException {
        return read(description, "PUT", s);
    }

    private Socket open() throws IOException {
        Socket s = tls ? SSLSocketFactory.getDefault().createSocket() : new Socket();
        s.connect(new InetSocketAddress(host, port), timeoutMillis);
        s.setSoTimeout(timeoutMillis);
        s.setTcpNoDelay(true);
        return s;
    }

    private byte[] head(String method, String target, long contentLength, String... headers) {
        StringBuilder sb = new StringBuilder();
        sb.append(method).append(' ').append(basePath).append(target).append(" HTTP/1.1\r\n");
        sb.append("Host: ").append(host).append(':').append(port).append("\r\n");
        sb.append("Connection: close\r\n");
        sb.append("User-Agent: sandboxd-conformance\r\n");
        boolean hasAuth = false;
        for (int i = 0; i + 1 < headers.length; i += 2) {
            if (headers[i].equalsIgnoreCase("Authorization")) {
                hasAuth = true;
            }
            if (headers[i + 1] != null) {
                sb.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
            }
        }
        if (!hasAuth && token != null) {
            sb.append("Authorization: Bearer ").append(token).append("\r\n");
        }
        if (contentLength >= 0) {
            sb.append("Content-Length: ").append(contentLength).append("\r\n");
        }
        sb.append("\r\n");
        return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private HttpResult read(String description, String method, Socket socket) throws IOException {
        InputStream in = new java.io.BufferedInputStream(socket.getInputStream(), 65536);
        return read(description, method, socket, in);
    }

    private HttpResult read(String description, String method, Socket socket, InputStream in) throws IOException {
        String statusLine = line(in);
        while (statusLine.isEmpty()) {
            statusLine = line(in);
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP response to " + description + ": " + Bytes.excerpt(statusLine, 120));
        }
        int status = Integer.parseInt(parts[1].trim());
        String reason = parts.length > 2 ? parts[2] : "";
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (String l = line(in); !l.isEmpty(); l = line(in)) {
            int colon = l.indexOf(':');
            if (colon > 0) {
                headers.add(Map.entry(l.substring(0, colon).trim(), l.substring(colon + 1).trim()));
            }
        }
        if (status >= 100 && status < 200) {
            return read(description, method, socket, in);
        }
        HttpResult probe = new HttpResult(description, status, reason, headers, new byte[0], new byte[0]);
        boolean bodiless = method.equals("HEAD") || status == 204 || status == 304;
        if (bodiless) {
            socket.setSoTimeout(1000);
            return new HttpResult(description, status, reason, headers, new byte[0], drain(in));
        }
        byte[] body;
        String te = probe.header("Transfer-Encoding");
        String cl = probe.header("Content-Length");
        if (te != null && te.toLowerCase(java.util.Locale.ROOT).contains("chunked")) {
            body = chunked(in);
        } else if (cl != null) {
            long n = Long.parseLong(cl.trim());
            if (n > MAX_BODY) {
                throw new IOException("response to " + description + " announces " + n + " bytes, over the suite's limit");
            }
            body = in.readNBytes((int) n);
            if (body.length < n) {
                throw new EOFException("response to " + description + " ended after " + body.length + " of " + n + " announced bytes");
            }
        } else {
            body = readCapped(in);
        }
        return new HttpResult(description, status, reason, headers, body, new byte[0]);
    }

    /** Bytes after a bodiless response; the server should close right after the head. */
    private static byte[] drain(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            byte[] buf = new byte[8192];
            int n;
            while (out.size() < 65536 && (n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            // The server kept the connection open: fine, nothing more came.
        } catch (IOException e) {
            // Reset after the response: nothing more came.
        }
        return out.toByteArray();
    }

    private static byte[] readCapped(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        int n;
        while ((n = in.read(buf)) > 0) {
            out.write(buf, 0, n);
            if (out.size() > MAX_BODY) {
                throw new IOException("response body over the suite's limit of " + MAX_BODY + " bytes");
            }
        }
        return out.toByteArray();
    }

    private static byte[] chunked(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = line(in);
            int semi = sizeLine.indexOf(';');
            int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
            if (size == 0) {
                while (!line(in).isEmpty()) {
                    // trailers
                }
                return out.toByteArray();
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length < size) {
                throw new EOFException("chunked body ended inside a chunk");
            }
            out.write(chunk);
            if (out.size() > MAX_BODY) {
                throw new IOException("response body over the suite's limit of " + MAX_BODY + " bytes");
            }
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(128);
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                break;
            }
            if (c != '\r') {
                b.write(c);
            }
            if (b.size() > 65536) {
                throw new IOException("header line over 64 KiB");
            }
        }
        if (c == -1 && b.size() == 0) {
            throw new EOFException("connection closed before a complete response");
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
