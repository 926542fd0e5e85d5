package io.sandboxd.daemon.rest;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.FileOperations;
import io.sandboxd.daemon.fs.ListCursor;
import io.sandboxd.daemon.fs.TreeListing;
import java.io.IOException;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The file operations under {@code /sandboxd/v1alpha1/fs/} (runtime-contract §4.3): maps query
 * parameters onto {@link FileOperations} and its results onto JSON. No filesystem logic here.
 */
final class FileOpsHandler {
    /** Octal, three or four digits, an optional leading 0: {@code 755}, {@code 0755}, {@code 1777}. */
    private static final Pattern MODE = Pattern.compile("^0?[0-7]{3,4}$");

    /** Entries per listing page unless the request says otherwise. */
    static final int DEFAULT_PAGE = 1000;

    private final FileOperations ops;

    FileOpsHandler(FileOperations ops) {
        this.ops = ops;
    }

    void register(ExtensionRoutes routes) {
        routes.add(HandlerType.GET, "fs/stat", this::stat);
        routes.add(HandlerType.GET, "fs/list", this::list);
        routes.add(HandlerType.POST, "fs/mkdir", this::mkdir);
        routes.add(HandlerType.POST, "fs/move", this::move);
        routes.add(HandlerType.POST, "fs/chmod", this::chmod);
    }

    void stat(Context ctx) throws SandboxException {
        QueryParams q = QueryParams.of(ctx, Set.of("path", "follow"));
        json(ctx, StatJson.of(ops.stat(q.path("path"), q.bool("follow", false))));
    }

    void list(Context ctx) throws SandboxException, IOException {
        QueryParams q = QueryParams.of(ctx, Set.of("path", "depth", "limit", "cursor"));
        byte[] path = q.path("path");
        int depth = (int) q.integer("depth", 1, 1, TreeListing.MAX_DEPTH);
        int limit = (int) q.integer("limit", DEFAULT_PAGE, 1, TreeListing.MAX_LIMIT);
        String cursor = q.string("cursor").orElse("");
        ListCursor after = cursor.isEmpty() ? null : ListCursor.decode(cursor);
        try (TreeListing listing = ops.list(path, depth, limit, after)) {
            ctx.status(200);
            ctx.res().setContentType("application/json");
            // streamed: Jetty sends a Content-Length when it all fits its buffer, else chunks
            TreeListingJson.write(listing, ctx.res().getOutputStream());
        }
    }

    void mkdir(Context ctx) throws SandboxException {
        QueryParams q = QueryParams.of(ctx, Set.of("path", "parents", "mode"));
        byte[] path = q.path("path");
        int mode = mode(q.string("mode").orElse(""), FileOperations.DEFAULT_DIRECTORY_MODE);
        boolean created = ops.mkdir(path, q.bool("parents", false), mode);
        noContent(ctx, created ? 201 : 204);
    }

    void move(Context ctx) throws SandboxException {
        QueryParams q = QueryParams.of(ctx, Set.of("from", "to", "overwrite"));
        ops.move(q.path("from"), q.path("to"), q.bool("overwrite", false));
        noContent(ctx, 204);
    }

    void chmod(Context ctx) throws SandboxException {
        QueryParams q = QueryParams.of(ctx, Set.of("path", "mode"));
        byte[] path = q.path("path");
        String mode = q.string("mode")
                .orElseThrow(
                        () -> new SandboxException(ErrorKind.INVALID_ARGUMENT, "query parameter \"mode\" is required"));
        ops.chmod(path, mode(mode, -1));
        noContent(ctx, 204);
    }

    /** An octal mode; empty is {@code dflt}. */
    static int mode(String text, int dflt) throws SandboxException {
        if (text.isEmpty() && dflt >= 0) {
            return dflt;
        }
        if (!MODE.matcher(text).matches()) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT,
                    "query parameter \"mode\" must be octal like 0755 (^0?[0-7]{3,4}$), got \""
                            + (text.length() > 16 ? text.substring(0, 16) + "..." : text) + "\"");
        }
        int mode = Integer.parseInt(text, 8);
        FileOperations.checkMode(mode);
        return mode;
    }

    /** The change is made; no body (so no Content-Type either: Javalin presets text/plain). */
    private static void noContent(Context ctx, int status) {
        ctx.status(status);
        ctx.res().setContentType(null);
    }

    private static void json(Context ctx, byte[] body) {
        ctx.status(200);
        ctx.res().setContentType("application/json");
        ctx.res().setContentLength(body.length);
        ctx.result(body);
    }
}
