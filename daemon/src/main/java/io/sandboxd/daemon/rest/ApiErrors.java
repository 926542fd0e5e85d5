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
        ctx.result(body);
    }
}
