package io.sandboxd.reliability.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * A small REST client for the daemon's filesystem API on {@link HttpClient}. Paths are given
 * unencoded and sent with each segment percent-encoded, as the upstream SDKs do.
 */
public final class Rest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient http;
    private final String base;
    private final Optional<String> token;

    public Rest(String base, Optional<String> token) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.token = token;
    }

    public String base() {
        return base;
    }

    public record Response(int status, HttpResponse<byte[]> raw) {
        public byte[] body() {
            return raw.body();
        }

        public String text() {
            return new String(raw.body(), StandardCharsets.UTF_8);
        }

        public Optional<String> header(String name) {
            return raw.headers().firstValue(name);
        }
    }

    public Response put(String path, byte[] content) throws IOException {
        return send(request("/v1/files/" + encodePath(path)).PUT(HttpRequest.BodyPublishers.ofByteArray(content))
                .header("Content-Type", "application/octet-stream"));
    }

    public Response get(String path) throws IOException {
        return send(request("/v1/files/" + encodePath(path)).GET());
    }

    public Response delete(String path, boolean recursive) throws IOException {
        return send(request("/v1/files/" + encodePath(path) + (recursive ? "?recursive=true" : "")).DELETE());
    }

    /** Any method on a raw, already-encoded path and query (e.g. {@code /metrics}). */
    public Response raw(String method, String rawPathAndQuery, byte[] body, String... headers) throws IOException {
        HttpRequest.Builder b = request(rawPathAndQuery).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return send(b);
    }

    private HttpRequest.Builder request(String rawPath) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + rawPath)).timeout(TIMEOUT);
        token.ifPresent(t -> b.header("Authorization", "Bearer " + t));
        return b;
    }

    private Response send(HttpRequest.Builder b) throws IOException {
        try {
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Response(r.statusCode(), r);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Percent-encodes every byte outside RFC 3986 unreserved characters, keeping '/' separators. */
    public static String encodePath(String path) {
        StringBuilder sb = new StringBuilder();
        for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return sb.toString();
    }
}
