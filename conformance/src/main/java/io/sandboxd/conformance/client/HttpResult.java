package io.sandboxd.conformance.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP response exactly as it came off the wire. {@code extraBytes} are bytes the server sent
 * after a response that must not have a body (HEAD, 204, 304).
 */
public record HttpResult(String request, int status, String reason, List<Map.Entry<String, String>> headers,
                         byte[] body, byte[] extraBytes) {

    public String header(String name) {
        for (Map.Entry<String, String> h : headers) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return null;
    }

    public List<String> headerValues(String name) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> h : headers) {
            if (h.getKey().equalsIgnoreCase(name)) {
                out.add(h.getValue());
            }
        }
        return out;
    }

    /** The media type without parameters, lower case, or "" when absent. */
    public String mediaType() {
        String ct = header("Content-Type");
        if (ct == null) {
            return "";
        }
        int semi = ct.indexOf(';');
        return (semi < 0 ? ct : ct.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** A one-line description for failure messages: status, content type and a body excerpt. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(status).append(' ').append(reason);
        String ct = header("Content-Type");
        sb.append(", Content-Type: ").append(ct == null ? "(none)" : ct);
        sb.append(", body ").append(body.length).append(" bytes");
        if (body.length > 0) {
            sb.append(' ').append(Bytes.excerpt(body, 96));
        }
        return sb.toString();
    }
}
