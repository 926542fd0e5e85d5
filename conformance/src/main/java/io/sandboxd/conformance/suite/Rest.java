package io.sandboxd.conformance.suite;

import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;

/**
 * The suite's REST side, over testkit's {@link RawHttp}: the request target goes on the wire byte
 * for byte as given ({@code /v1/files/a%2Fb}, {@code %2E%2E}, a literal {@code ..}, which every
 * general-purpose client would normalise or reject), under the base URL's path prefix, with the
 * suite's bearer token. One connection per request ({@code Connection: close}), so a broken
 * response cannot poison the next check.
 */
public final class Rest {
    private final URI base;
    private final String basePath;
    private final String token;
    private final Duration timeout;

    public Rest(URI base, String token, Duration timeout) {
        this.base = base;
        String p = base.getRawPath() == null ? "" : base.getRawPath();
        this.basePath = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
        this.token = token;
        this.timeout = timeout;
    }

    /** The same runtime with another token (null: none). */
    public Rest withToken(String newToken) {
        return new Rest(base, newToken, timeout);
    }

    /** The same runtime with another bound on the connect and every read. */
    public Rest withTimeout(Duration newTimeout) {
        return new Rest(base, token, newTimeout);
    }

    public Reply get(String target, String... headers) throws IOException {
        return send("GET", target, null, headers);
    }

    public Reply head(String target, String... headers) throws IOException {
        return send("HEAD", target, null, headers);
    }

    public Reply put(String target, byte[] body, String... headers) throws IOException {
        return send("PUT", target, body, headers);
    }

    public Reply delete(String target, String... headers) throws IOException {
        return send("DELETE", target, null, headers);
    }

    /**
     * Sends one request. {@code target} is the raw request target under the base path, e.g.
     * {@code /v1/files/a%2Fb}; {@code headers} are name, value pairs (a null value sends nothing).
     */
    public Reply send(String method, String target, byte[] body, String... headers) throws IOException {
        RawRequest request = request(method, target, headers);
        if (body != null) {
            request = request.body(body);
        }
        String description = method + " " + target;
        try (RawHttp h = RawHttp.connect(base, timeout)) {
            try {
                h.send(request);
                RawResponse r = h.read(method.equals("HEAD"));
                // Bytes after a response that must have no body: the server should close right after the head.
                boolean bodiless = method.equals("HEAD") || r.status() == 204 || r.status() == 304;
                return new Reply(description, r, bodiless ? h.readAvailable(Duration.ofSeconds(1)) : new byte[0]);
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                throw new IOException(description + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Starts a PUT whose body the caller sends (or abandons) itself: the open connection after the
     * head. Used to test in-flight and aborted uploads.
     */
    public RawHttp startUpload(String target, long contentLength, String... headers) throws IOException {
        RawHttp h = RawHttp.connect(base, timeout);
        try {
            h.send(request("PUT", target, headers).header("Content-Length", Long.toString(contentLength)));
            return h;
        } catch (IOException e) {
            h.close();
            throw e;
        }
    }

    private RawRequest request(String method, String target, String... headers) {
        RawRequest r = RawRequest.of(method, basePath + target).closing().header("User-Agent", "sandboxd-conformance");
        boolean auth = false;
        for (int i = 0; i + 1 < headers.length; i += 2) {
            auth |= headers[i].equalsIgnoreCase("Authorization");
            r = r.header(headers[i], headers[i + 1]);
        }
        return auth ? r : r.bearer(token);
    }
}
