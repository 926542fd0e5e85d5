package io.sandboxd.daemon.rest;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.DirectoryArchives;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Set;

/**
 * {@code GET|PUT /sandboxd/v1alpha1/fs/archive} (runtime-contract §4.3): a directory as a streamed
 * tar (gzip on request), and a tar or tar.gz body extracted all or nothing. Maps HTTP onto
 * {@link DirectoryArchives}; no filesystem logic here.
 */
final class ArchiveHandler {
    /**
     * Beyond this much of a refused upload's body, the connection is closed instead of read to its
     * end. ({@link RawBodySource} drops the rest of a file upload whose write failed the same way,
     * over Jetty's chunks rather than a stream.)
     */
    static final long MAX_DISCARDED_BODY = 1 << 20;

    private final DirectoryArchives archives;

    ArchiveHandler(DirectoryArchives archives) {
        this.archives = archives;
    }

    void register(ExtensionRoutes routes) {
        routes.add(HandlerType.GET, "fs/archive", this::download);
        routes.add(HandlerType.PUT, "fs/archive", this::upload);
    }

    void download(Context ctx) throws SandboxException, IOException {
        QueryParams q = QueryParams.of(ctx, Set.of("path", "gzip"));
        boolean gzip = q.bool("gzip", false);
        try (DirectoryArchives.Download d = archives.download(q.path("path"))) {
            ctx.status(200);
            ctx.res().setContentType(gzip ? "application/gzip" : "application/x-tar");
            // streamed as the tree is walked: chunked, no length known ahead
            OutputStream out = ctx.res().getOutputStream();
            d.writeTo(out, gzip);
        }
    }

    void upload(Context ctx) throws SandboxException, IOException {
        QueryParams q = QueryParams.of(ctx, Set.of("path", "replace", "sync"));
        byte[] path = q.path("path");
        boolean replace = q.bool("replace", false);
        boolean sync = q.bool("sync", true);
        InputStream in = new MinimumRateInputStream(ctx.req().getInputStream());
        long entries;
        try {
            entries = archives.upload(path, in, replace, sync);
        } catch (SandboxException e) {
            discardRest(in);
            throw e;
        }
        byte[] body = Json.bytes(g -> {
            g.writeStartObject();
            g.writeNumberProperty("entries", entries);
            g.writeEndObject();
        });
        ctx.status(200);
        ctx.res().setContentType("application/json");
        ctx.res().setContentLength(body.length);
        ctx.result(body);
    }

    /**
     * Reads what is left of a refused upload's body (the target exists, an entry is refused), up
     * to {@link #MAX_DISCARDED_BODY}. Answered over unread bytes, the server closes the
     * connection, and the bytes the client is still sending make the kernel reset it, often
     * before the client has read the refusal ("no bytes" instead of a 409, seen in CI).
     */
    private static void discardRest(InputStream in) {
        byte[] buf = new byte[8192];
        try {
            for (long left = MAX_DISCARDED_BODY; left > 0; ) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) return;
                left -= n;
            }
        } catch (IOException e) {
            // the client went away or sends too slowly: the refusal is answered anyway
        }
    }
}
