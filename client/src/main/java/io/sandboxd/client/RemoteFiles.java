package io.sandboxd.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import tools.jackson.databind.JsonNode;

/**
 * The file operations of one client view beyond upstream's read/write/delete
 * (runtime-contract §4.3, routes under {@code /sandboxd/v1alpha1/fs/}): stat, deep paged
 * listings, mkdir, move, chmod, and whole directories as tar archives. Failures are
 * {@link RestCallException}s with the daemon's code and message.
 *
 * <pre>{@code
 * RemoteFiles fs = client.files();
 * fs.mkdir("work/out", true);
 * fs.move("work/out", "work/done", false);
 * for (TreeEntry e : fs.walk("work", 8)) { ... }
 * try (OutputStream out = Files.newOutputStream(Path.of("work.tar"))) { fs.downloadArchive("work", false, out); }
 * }</pre>
 */
public final class RemoteFiles {
    /** The route prefix of the extension API. */
    public static final String PREFIX = "/sandboxd/v1alpha1/fs/";

    private final SandboxdClient client;

    RemoteFiles(SandboxdClient client) {
        this.client = client;
    }

    /** @param follow describe what a final symlink leads to (as GET would serve it) instead of the link */
    public EntryStat stat(String path, boolean follow) {
        byte[] body = client.restCall(
                "GET", RestPaths.display(path), "stat?path=" + q(path) + (follow ? "&follow=true" : ""), null);
        JsonNode n = Json.MAPPER.readTree(body);
        return new EntryStat(
                n.path("path").asString(),
                text(n, "path_encoded"),
                n.path("type").asString(),
                n.path("size").asLong(),
                n.path("mode").asString(),
                Json.instant(n.path("modified_at").asString()),
                text(n, "etag"),
                text(n, "link_target"),
                text(n, "link_resolves"));
    }

    public EntryStat stat(String path) {
        return stat(path, false);
    }

    /**
     * One page of a deep listing.
     *
     * @param depth  1 lists the directory's own entries, 2 theirs too, ... (at most 32)
     * @param limit  entries per page, 1..100,000
     * @param cursor the previous page's {@link TreePage#nextCursor()}, or null for the first
     */
    public TreePage list(String path, int depth, int limit, String cursor) {
        String query = "list?path=" + q(path) + "&depth=" + depth + "&limit=" + limit
                + (cursor == null ? "" : "&cursor=" + RestPaths.encode(cursor));
        HttpResponse<InputStream> r = client.restStream("GET", RestPaths.display(path), query);
        try (InputStream in = r.body()) {
            JsonNode n = Json.MAPPER.readTree(in);
            List<TreeEntry> entries = new ArrayList<>();
            for (JsonNode e : n.path("entries")) {
                entries.add(new TreeEntry(
                        e.path("path").asString(),
                        text(e, "path_encoded"),
                        e.path("type").asString(),
                        e.path("size").asLong(),
                        e.path("mode").asString(),
                        Json.instant(e.path("modified_at").asString()),
                        text(e, "etag"),
                        text(e, "link_target"),
                        text(e, "list_error")));
            }
            return new TreePage(n.path("path").asString(), entries, text(n, "next_cursor"));
        } catch (IOException e) {
            throw new SandboxdException("GET " + RestPaths.display(path) + ": " + e.getMessage(), e);
        }
    }

    /** Every entry down to {@code depth}, fetched a page (1,000) at a time as the iteration goes. */
    public Iterable<TreeEntry> walk(String path, int depth) {
        return () -> new Iterator<>() {
            private TreePage page = list(path, depth, 1000, null);
            private int at;

            @Override
            public boolean hasNext() {
                while (at >= page.entries().size() && page.nextCursor() != null) {
                    page = list(path, depth, 1000, page.nextCursor());
                    at = 0;
                }
                return at < page.entries().size();
            }

            @Override
            public TreeEntry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return page.entries().get(at++);
            }
        };
    }

    /** Creates a directory (0755); with {@code parents} missing parents too, and an existing directory is fine. */
    public void mkdir(String path, boolean parents) {
        mkdir(path, parents, 0755);
    }

    /** @param mode applied exactly, e.g. {@code 0750} */
    public void mkdir(String path, boolean parents, int mode) {
        client.restCall(
                "POST",
                RestPaths.display(path),
                "mkdir?path=" + q(path) + (parents ? "&parents=true" : "") + "&mode=0" + Integer.toOctalString(mode),
                null);
    }

    /** Renames {@code from} to exactly {@code to}, atomically; an existing {@code to} only with {@code overwrite}. */
    public void move(String from, String to, boolean overwrite) {
        client.restCall(
                "POST",
                RestPaths.display(from),
                "move?from=" + q(from) + "&to=" + q(to) + (overwrite ? "&overwrite=true" : ""),
                null);
    }

    /** @param mode e.g. {@code 0640}; setuid/setgid bits are refused */
    public void chmod(String path, int mode) {
        client.restCall(
                "POST",
                RestPaths.display(path),
                "chmod?path=" + q(path) + "&mode=0" + Integer.toOctalString(mode),
                null);
    }

    /** Streams the directory as a tar (gzip-compressed if asked) into {@code out}; @return bytes written */
    public long downloadArchive(String path, boolean gzip, OutputStream out) {
        HttpResponse<InputStream> r = client.restStream(
                "GET", RestPaths.display(path), "archive?path=" + q(path) + (gzip ? "&gzip=true" : ""));
        try (InputStream in = r.body()) {
            return in.transferTo(out);
        } catch (IOException e) {
            throw new SandboxdException("GET archive of " + RestPaths.display(path) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Extracts a tar or tar.gz as the directory {@code path}, all or nothing.
     *
     * @param replace swap out an existing entry at {@code path} (else 409)
     * @return the number of entries extracted
     */
    public long uploadArchive(String path, InputStream tar, boolean replace) {
        return uploadArchive(path, tar, replace, true);
    }

    /**
     * As {@link #uploadArchive(String, InputStream, boolean)}; with {@code sync} false the daemon
     * answers once the tree is in place without waiting for its data to reach the disk (a machine
     * crash can then lose it, as after a plain {@code tar -x}; a daemon crash cannot).
     */
    public long uploadArchive(String path, InputStream tar, boolean replace, boolean sync) {
        HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.ofInputStream(() -> tar);
        byte[] r = client.restCall(
                "PUT",
                RestPaths.display(path),
                "archive?path=" + q(path) + (replace ? "&replace=true" : "") + (sync ? "" : "&sync=false"),
                body);
        return Json.MAPPER.readTree(r).path("entries").asLong();
    }

    /** A path as a query value: relative, every byte outside the unreserved set percent-encoded. */
    private static String q(String path) {
        return RestPaths.encode(RestPaths.relative(path));
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }
}
