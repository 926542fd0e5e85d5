package io.sandboxd.daemon.rest;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.FileOperations;
import java.util.Set;

/**
 * The file operations under {@code /sandboxd/v1alpha1/fs/} (runtime-contract §4.3): maps query
 * parameters onto {@link FileOperations} and its results onto JSON. No filesystem logic here.
 */
final class FileOpsHandler {
    private final FileOperations ops;

    FileOpsHandler(FileOperations ops) {
        this.ops = ops;
    }

    void register(ExtensionRoutes routes) {
        routes.add(HandlerType.GET, "fs/stat", this::stat);
    }

    void stat(Context ctx) throws SandboxException {
        QueryParams q = QueryParams.of(ctx, Set.of("path", "follow"));
        json(ctx, StatJson.of(ops.stat(q.path("path"), q.bool("follow", false))));
    }

    private static void json(Context ctx, byte[] body) {
        ctx.status(200);
        ctx.res().setContentType("application/json");
        ctx.res().setContentLength(body.length);
        ctx.result(body);
    }
}
