package io.sandboxd.daemon.rest;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.ContentSource;
import io.sandboxd.daemon.fs.DirectBuffers;
import io.sandboxd.daemon.fs.DirectoryListing;
import io.sandboxd.daemon.fs.Etags;
import io.sandboxd.daemon.fs.FileInfo;
import io.sandboxd.daemon.fs.FileStore;
import io.sandboxd.daemon.fs.OpenFile;
import io.sandboxd.daemon.fs.ReadResult;
import io.sandboxd.daemon.fs.WriteOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code GET|HEAD|PUT|DELETE /v1/files/{path}} (runtime-contract §2.3–2.5): maps HTTP requests, headers
 * and errors onto {@link FileStore}. No filesystem logic lives here: file content comes from
 * the store ({@link OpenFile#sendTo}) and goes to it ({@link ContentSource}).
 */
final class FilesHandler {
    private static final Pattern MODE = Pattern.compile("^0[0-7]{3}$");
    private static final Pattern SHA256_HEX = Pattern.compile("^[0-9a-fA-F]{64}$");
    private static final Pattern CONTENT_DIGEST_SHA256 =
            Pattern.compile("(?:^|,)\\s*sha-256=:([A-Za-z0-9+/=]+):\\s*(?:,|$)");

    private final FileStore store;
    private final DirectBuffers uploadBuffers;

    /** @param uploadBuffers where raw uploads gather small network chunks (the pool downloads use too) */
    FilesHandler(FileStore store, DirectBuffers uploadBuffers) {
        this.store = store;
        this.uploadBuffers = uploadBuffers;
    }

    // ---------------------------------------------------------------- GET / HEAD

    void get(Context ctx) throws SandboxException, IOException {
        byte[] path = RawPath.filesPath(ctx.req());
        ReadResult result = store.read(path);
        if (result instanceof ReadResult.Directory d) {
            try (DirectoryListing listing = d.listing()) {
                ctx.status(200);
                ctx.res().setContentType("application/json");
                // streamed: Jetty sends a Content-Length when it all fits its buffer, else chunks
                ListingJson.write(path, listing, ctx.res().getOutputStream());
            }
            return;
        }
        try (OpenFile f = ((ReadResult.File) result).file()) {
            sendFile(ctx, f);
        }
    }

    private void sendFile(Context ctx, OpenFile f) throws IOException {
        FileInfo info = f.info();
        Instant lastModified = info.modifiedAt().truncatedTo(ChronoUnit.SECONDS);
        ctx.header("Accept-Ranges", "bytes");
        ctx.header("ETag", info.etag());
        ctx.header("Last-Modified", HttpDates.format(lastModified));

        String ifMatch = ctx.header("If-Match");
        if (ifMatch != null && !Etags.matches(ifMatch, info.etag())) {
            ApiErrors.write(ctx, 412, "PRECONDITION_FAILED", "file changed (If-Match)");
            return;
        }
        Instant ius = ifMatch == null ? HttpDates.parse(ctx.header("If-Unmodified-Since")) : null;
        if (ius != null && lastModified.isAfter(ius)) {
            ApiErrors.write(ctx, 412, "PRECONDITION_FAILED", "file changed (If-Unmodified-Since)");
            return;
        }
        String inm = ctx.header("If-None-Match");
        boolean notModified;
        if (inm != null) {
            notModified = Etags.matchesWeak(inm, info.etag());
        } else {
            Instant ims = HttpDates.parse(ctx.header("If-Modified-Since"));
            notModified = ims != null && !lastModified.isAfter(ims);
        }
        if (notModified) {
            ctx.status(304);
            return;
        }

        long size = info.size();
        ByteRange range = ByteRange.parse(ctx.header("Range"), size);
        if (range != ByteRange.NONE && !ifRangeHolds(ctx.header("If-Range"), info, lastModified)) {
            range = ByteRange.NONE;
        }
        if (range == ByteRange.UNSATISFIABLE) {
            ctx.header("Content-Range", "bytes */" + size);
            ApiErrors.write(ctx, 416, "INVALID_ARGUMENT", "range not satisfiable for a file of " + size + " bytes");
            return;
        }
        long first = 0;
        long length = size;
        if (range != ByteRange.NONE) {
            first = range.first();
            length = range.length();
            ctx.status(206);
            ctx.header("Content-Range", "bytes " + range.first() + "-" + range.last() + "/" + size);
        } else {
            ctx.status(200);
        }
        ctx.res().setContentType("application/octet-stream");
        ctx.res().setContentLengthLong(length);
        if (ctx.method() == HandlerType.HEAD) {
            return;
        }
        OutputStream out = ctx.res().getOutputStream();
        f.sendTo(first, length, ResponseBody.of(out));
        out.flush();
    }

    private static boolean ifRangeHolds(String ifRange, FileInfo info, Instant lastModified) {
        if (ifRange == null) {
            return true;
        }
        String v = ifRange.trim();
        if (v.startsWith("\"")) {
            return v.equals(info.etag());
        }
        Instant d = HttpDates.parse(v);
        return d != null && d.equals(lastModified);
    }

    // ---------------------------------------------------------------- PUT

    void put(Context ctx) throws SandboxException, IOException {
        byte[] path = RawPath.filesPath(ctx.req());
        int mode = parseMode(ctx.queryParam("mode"));
        Optional<byte[]> digest = expectedSha256(ctx);
        String inm = ctx.header("If-None-Match");
        boolean ifNoneMatchAny = false;
        if (inm != null) {
            if (!inm.trim().equals("*")) {
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "If-None-Match on PUT supports only \"*\"");
            }
            ifNoneMatchAny = true;
        }
        WriteOptions options =
                new WriteOptions(mode, digest, Optional.ofNullable(ctx.header("If-Match")), ifNoneMatchAny);
        String boundary = MultipartFileSource.formDataBoundary(ctx.header("Content-Type"));
        ContentSource source = boundary != null
                ? new MultipartFileSource(new MinimumRateInputStream(ctx.req().getInputStream()), boundary)
                : new RawBodySource(CoreRequest.of(ctx), uploadBuffers, new MinimumRate());
        store.write(path, source, options);
        noContent(ctx);
    }

    /** 204 carries no body, so no Content-Type either (Javalin presets text/plain). */
    private static void noContent(Context ctx) {
        ctx.status(204);
        ctx.res().setContentType(null);
    }

    static int parseMode(String mode) throws SandboxException {
        if (mode == null || mode.isEmpty()) {
            return WriteOptions.DEFAULT_MODE;
        }
        if (!MODE.matcher(mode).matches()) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "mode \"" + mode + "\" must match ^0[0-7]{3}$");
        }
        return Integer.parseInt(mode, 8);
    }

    static Optional<byte[]> expectedSha256(Context ctx) throws SandboxException {
        String hex = ctx.header("X-Content-SHA256");
        String cd = ctx.header("Content-Digest");
        byte[] fromHex = null;
        byte[] fromCd = null;
        if (hex != null) {
            if (!SHA256_HEX.matcher(hex.trim()).matches()) {
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "X-Content-SHA256 must be 64 hex digits");
            }
            fromHex = HexFormat.of().parseHex(hex.trim().toLowerCase());
        }
        if (cd != null) {
            var m = CONTENT_DIGEST_SHA256.matcher(cd);
            if (m.find()) {
                try {
                    fromCd = Base64.getDecoder().decode(m.group(1));
                } catch (IllegalArgumentException e) {
                    fromCd = new byte[0];
                }
                if (fromCd.length != 32) {
                    throw new SandboxException(
                            ErrorKind.INVALID_ARGUMENT, "Content-Digest sha-256 must be 32 bytes of base64");
                }
            }
        }
        if (fromHex != null && fromCd != null && !java.util.Arrays.equals(fromHex, fromCd)) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "X-Content-SHA256 and Content-Digest disagree");
        }
        return Optional.ofNullable(fromHex != null ? fromHex : fromCd);
    }

    // ---------------------------------------------------------------- DELETE

    void delete(Context ctx) throws SandboxException {
        byte[] path = RawPath.filesPath(ctx.req());
        String rec = ctx.queryParam("recursive");
        boolean recursive;
        if (rec == null || rec.isEmpty() || rec.equals("false")) {
            recursive = false;
        } else if (rec.equals("true")) {
            recursive = true;
        } else {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "recursive \"" + rec + "\" must be a boolean");
        }
        store.delete(path, recursive);
        noContent(ctx);
    }
}
