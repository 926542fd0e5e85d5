package io.sandboxd.testkit.raw;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP response as it came off the wire: status line, headers in order (names as sent), the
 * body (empty when it was streamed to a sink; {@link #bodyLength()} still counts it) and, for a
 * chunked body, its trailers.
 */
public record RawResponse(
        String statusLine,
        int status,
        String reason,
        List<Map.Entry<String, String>> headers,
        byte[] body,
        long bodyLength,
        List<Map.Entry<String, String>> trailers) {

    /** The first value of a header (any case), or null. */
    public String header(String name) {
        for (Map.Entry<String, String> h : headers) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return null;
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

    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** One line for failure messages: status, content type, body size and excerpt. */
    public String describe() {
        String ct = header("Content-Type");
        return status + " " + reason + ", Content-Type: " + (ct == null ? "(none)" : ct) + ", body " + bodyLength
                + " bytes" + (body.length > 0 ? " " + RawHttp.excerpt(body, 96) : "");
    }
}
