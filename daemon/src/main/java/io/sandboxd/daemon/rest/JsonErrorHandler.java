package io.sandboxd.daemon.rest;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty raises before our handlers run (unparsable URI, bad header, NUL in the path)
 * get the same JSON body as every other error (runtime-contract §2.2) instead of Jetty's HTML.
 */
final class JsonErrorHandler extends ErrorHandler {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int status = response.getStatus();
        String code =
                switch (status) {
                    case 400, 414, 431, 416 -> "INVALID_ARGUMENT";
                    case 401 -> "UNAUTHENTICATED";
                    case 403 -> "PERMISSION_DENIED";
                    case 404 -> "NOT_FOUND";
                    case 409 -> "CONFLICT";
                    case 412 -> "PRECONDITION_FAILED";
                    case 503 -> "UNAVAILABLE";
                    default -> status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
                };
        Object msg = request.getAttribute(ERROR_MESSAGE);
        String message = msg == null ? "request rejected by the HTTP server" : "request rejected: " + msg;
        byte[] body = Json.error(code, message);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
        return true;
    }
}
