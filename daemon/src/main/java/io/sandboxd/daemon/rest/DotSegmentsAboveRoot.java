package io.sandboxd.daemon.rest;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * Lets a files path whose {@code ..} segments climb above the URI's own root reach the files
 * handler, which answers 403 PERMISSION_DENIED like for every other escape (runtime-contract §2.1).
 * Jetty canonicalises the path while it parses the request line, and one it cannot canonicalise
 * ({@code GET /v1/files/a/../../../../etc/passwd}, literal or {@code %2E%2E}) is refused there
 * with a bare 400, before any handler or URI-compliance setting applies. So for such a request
 * only, the connection shows Jetty a canonical stand-in under the same route and keeps the raw
 * path, which the {@link #customizer()} puts into a request attribute for
 * {@link RawPath#filesPath(jakarta.servlet.http.HttpServletRequest)}; auth, routing, the query and
 * the error body stay the usual ones. HTTP/1.1 handles one request at a time per connection, so
 * one field per connection carries it.
 */
final class DotSegmentsAboveRoot extends HttpConnectionFactory {
    static final String RAW_PATH = "sandboxd.raw-files-path";
    /** Canonical, routed like any files path, and never used as a path: the attribute is. */
    private static final String STAND_IN = RawPath.PREFIX + "/%2E%2E";

    DotSegmentsAboveRoot(HttpConfiguration config) {
        super(config);
    }

    @Override
    public Connection newConnection(Connector connector, EndPoint endPoint) {
        RawPathConnection c = new RawPathConnection(getHttpConfiguration(), connector, endPoint);
        c.setTransferEncodingChunkMaxLength(getTransferEncodingChunkMaxLength());
        return configure(c, connector, endPoint);
    }

    /** Copies the raw path a connection kept for its current request into the request's attributes. */
    static HttpConfiguration.Customizer customizer() {
        return (Request request, HttpFields.Mutable responseHeaders) -> {
            if (request.getConnectionMetaData().getConnection() instanceof RawPathConnection c) {
                String raw = c.takeRawPath();
                if (raw != null) {
                    request.setAttribute(RAW_PATH, raw);
                }
            }
            return request;
        };
    }

    /** The raw path of a request target Jetty could not parse, when it is a files path; else null. */
    static String unparsableFilesPath(String target) {
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        if (!RawPath.isFilesPath(path)) {
            return null;
        }
        try {
            HttpURI.build(target);
            return null;
        } catch (IllegalArgumentException e) {
            return path;
        }
    }

    private static final class RawPathConnection extends HttpConnection {
        private String rawPath;

        RawPathConnection(HttpConfiguration config, Connector connector, EndPoint endPoint) {
            super(config, connector, endPoint);
        }

        @Override
        protected HttpStreamOverHTTP1 newHttpStream(String method, String uri, HttpVersion version) {
            String raw = unparsableFilesPath(uri);
            rawPath = raw;
            if (raw == null) {
                return super.newHttpStream(method, uri, version);
            }
            int q = uri.indexOf('?');
            return super.newHttpStream(method, q < 0 ? STAND_IN : STAND_IN + uri.substring(q), version);
        }

        String takeRawPath() {
            String r = rawPath;
            rawPath = null;
            return r;
        }
    }
}
