package io.sandboxd.conformance.suite;

import io.sandboxd.testkit.raw.RawResponse;
import java.util.List;
import java.util.Map;

/**
 * One request of a check and its response exactly as it came off the wire. {@code request} is
 * how failure messages name it ({@code GET /v1/files/a%2Fb}); {@code extraBytes} are bytes the
 * server sent after a response that must not have a body (HEAD, 204, 304).
 */
public record Reply(String request, RawResponse response, byte[] extraBytes) {

    public int status() {
        return response.status();
    }

    public String header(String name) {
        return response.header(name);
    }

    public List<Map.Entry<String, String>> headers() {
        return response.headers();
    }

    public byte[] body() {
        return response.body();
    }

    /** The media type without parameters, lower case, or "" when absent. */
    public String mediaType() {
        return response.mediaType();
    }

    public String bodyText() {
        return response.text();
    }

    /** A one-line description for failure messages: status, content type and a body excerpt. */
    public String describe() {
        return response.describe();
    }
}
