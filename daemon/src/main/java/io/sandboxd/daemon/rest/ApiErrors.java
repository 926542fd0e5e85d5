package io.sandboxd.daemon.rest;

import io.javalin.http.Context;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;

/** Writes the uniform error body {@code {"code","message"}} (runtime-contract §2.2). */
final class ApiErrors {
    static final String WRITTEN = "sandboxd.error-written";

    private ApiErrors() {}

    static void write(Context ctx, SandboxException e) {
        ErrorKind kind = e.kind();
        // FAILED_PRECONDITION etc. are gRPC-only names: the REST table has a fixed code per status
        String code =
                switch (kind) {
                    case FAILED_PRECONDITION -> "INVALID_ARGUMENT";
                    default -> kind.name();
                };
        write(ctx, kind.httpStatus(), code, e.getMessage());
    }

    static void write(Context ctx, int status, String code, String message) {
        ctx.attribute(WRITTEN, Boolean.TRUE);
        byte[] body = Json.error(code, message == null || message.isBlank() ? code.toLowerCase() : message);
        ctx.status(status);
        ctx.res().setContentType("application/json");
        ctx.res().setContentLength(body.length);
        if (bodyLeftUnread(ctx)) {
            // Jetty closes a connection whose request body was not read, after the response went
            // out without saying so; a client that pooled it then fails its next request with no
            // answer at all (seen in CI: a PUT refused by If-Match, then the next PUT). Saying it
            // in the response makes every HTTP/1.1 client open a new connection instead
            // (runtime-contract §2.2).
            ctx.header("Connection", "close");
        }
        ctx.result(body);
    }

    /** Reads what of the body has arrived without waiting; true if some of it is still to come. */
    private static boolean bodyLeftUnread(Context ctx) {
        return !CoreRequest.of(ctx).consumeAvailable();
    }
}
