package io.sandboxd.daemon.rest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A deliberately dumb HTTP/1.1 client over a raw socket: sends the request target byte for byte
 * (no normalisation, no encoding), so tests control exactly what the server sees.
 */
public final class TestHttp {
    private final int port;

    public TestHttp(int port) {
        this.port = port;
    }

    public record Response(int status, Map<String, List<String>> headers, byte[] body) {
        public String header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            return v == null ? null : v.get(0);
        }

        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return status + " " + headers + " " + text();
        }
    }

    public Response get(String target) throws IOException {
        return send("GET", target, Map.of(), null);
    }

    public Response head(String target) throws IOException {
        return send("HEAD", target, Map.of(), null);
    }

    public Response put(String target, byte[] body) throws IOException {
        return send("PUT", target, Map.of("Content-Type", "application/octet-stream"), body);
    }

    public Response delete(String target) throws IOException {
        return send("DELETE", target, Map.of(), null);
    }

    public Response send(String method, String target, Map<String, String> headers, byte[] body) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            s.setSoTimeout(30_000);
            StringBuilder req = new StringBuilder();
            req.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
            req.append("Host: 127.0.0.1:").append(port).append("\r\n");
            req.append("Connection: close\r\n");
            for (Map.Entry<String, String> h : headers.entrySet()) {
                req.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
            }
            if (body != null) {
                req.append("Content-Length: ").append(body.length).append("\r\n");
            }
            req.append("\r\n");
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.UTF_8));
            if (body != null) {
                out.write(body);
            }
            out.flush();
            return read(s.getInputStream(), method.equals("HEAD"));
        }
    }

    static Response read(InputStream in, boolean head) throws IOException {
        String statusLine = line(in);
        if (statusLine == null) {
            throw new IOException("connection closed without a response");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        String l;
        while ((l = line(in)) != null && !l.isEmpty()) {
            int c = l.indexOf(':');
            headers.computeIfAbsent(l.substring(0, c).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(l.substring(c + 1).trim());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (!head && status != 204 && status != 304) {
            List<String> te = headers.get("transfer-encoding");
            List<String> cl = headers.get("content-length");
            if (te != null && te.get(0).equalsIgnoreCase("chunked")) {
                while (true) {
                    int n = Integer.parseInt(line(in).split(";")[0].trim(), 16);
                    if (n == 0) {
                        while ((l = line(in)) != null && !l.isEmpty()) {
                            // trailers
                        }
                        break;
                    }
                    body.write(in.readNBytes(n));
                    line(in);
                }
            } else if (cl != null) {
                body.write(in.readNBytes(Integer.parseInt(cl.get(0))));
            } else {
                in.transferTo(body);
            }
        }
        return new Response(status, headers, body.toByteArray());
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                break;
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        if (c < 0 && b.size() == 0) {
            return null;
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
