package io.sandboxd.testkit.raw;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An HTTP/1.1 request written exactly as built: the target is not normalised or encoded (send
 * {@code /v1/files/a%2Fb} or {@code /v1/files/../x} as is), headers keep their order, case and
 * duplicates; each char of the head is one byte (ISO-8859-1), so any byte can be sent. {@code Host} is added from the connection unless set; {@code Content-Length} is
 * added for a body unless {@link #withoutContentLength()} (e.g. to send chunked bytes yourself).
 * Immutable.
 */
public final class RawRequest {
    private final String method;
    private final String target;
    private final List<Map.Entry<String, String>> headers;
    private final byte[] body;
    private final boolean contentLength;

    private RawRequest(
            String method, String target, List<Map.Entry<String, String>> headers, byte[] body, boolean contentLength) {
        this.method = method;
        this.target = target;
        this.headers = List.copyOf(headers);
        this.body = body;
        this.contentLength = contentLength;
    }

    public static RawRequest of(String method, String target) {
        return new RawRequest(method, target, List.of(), null, true);
    }

    public static RawRequest get(String target) {
        return of("GET", target);
    }

    public static RawRequest head(String target) {
        return of("HEAD", target);
    }

    public static RawRequest put(String target, byte[] body) {
        return of("PUT", target).body(body);
    }

    public static RawRequest delete(String target) {
        return of("DELETE", target);
    }

    public String method() {
        return method;
    }

    public String target() {
        return target;
    }

    /** Adds a header line (a null value adds nothing, for optional headers). */
    public RawRequest header(String name, String value) {
        if (value == null) {
            return this;
        }
        List<Map.Entry<String, String>> all = new ArrayList<>(headers);
        all.add(Map.entry(name, value));
        return new RawRequest(method, target, all, body, contentLength);
    }

    /** {@code Authorization: Bearer TOKEN} (null: nothing). */
    public RawRequest bearer(String token) {
        return token == null ? this : header("Authorization", "Bearer " + token);
    }

    /** {@code Connection: close}. */
    public RawRequest closing() {
        return header("Connection", "close");
    }

    public RawRequest body(byte[] content) {
        return new RawRequest(method, target, headers, content, contentLength);
    }

    /** Sends no {@code Content-Length} even with a body. */
    public RawRequest withoutContentLength() {
        return new RawRequest(method, target, headers, body, false);
    }

    /** The request line, headers and body, as bytes; {@code hostPort} fills a missing Host. */
    public byte[] toBytes(String hostPort) {
        StringBuilder sb = new StringBuilder(128);
        sb.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
        boolean host = false;
        boolean length = false;
        for (Map.Entry<String, String> h : headers) {
            host |= h.getKey().equalsIgnoreCase("Host");
            length |=
                    h.getKey().equalsIgnoreCase("Content-Length") || h.getKey().equalsIgnoreCase("Transfer-Encoding");
        }
        if (!host && hostPort != null) {
            sb.append("Host: ").append(hostPort).append("\r\n");
        }
        for (Map.Entry<String, String> h : headers) {
            sb.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
        }
        if (contentLength && !length && (body != null || method.equals("PUT") || method.equals("POST"))) {
            sb.append("Content-Length: ").append(body == null ? 0 : body.length).append("\r\n");
        }
        sb.append("\r\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream(sb.length() + (body == null ? 0 : body.length));
        out.writeBytes(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (body != null) {
            out.writeBytes(body);
        }
        return out.toByteArray();
    }

    @Override
    public String toString() {
        return method + " " + target;
    }
}
