package io.sandboxd.conformance.checks;

import static io.sandboxd.conformance.suite.CheckId.*;
import static io.sandboxd.conformance.suite.Expect.fail;
import static io.sandboxd.conformance.suite.Expect.utf8;
import static io.sandboxd.conformance.suite.Paths.enc;
import static io.sandboxd.conformance.suite.Paths.escape;

import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.Expect;
import io.sandboxd.conformance.suite.Reply;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** Checks of runtime-contract §4.3: the file operations under /sandboxd/v1alpha1/fs/ (level extended). */
public final class FileOpsChecks {
    private static final String FS = "/sandboxd/v1alpha1/fs/";

    private FileOpsChecks() {}

    public static void register(Map<CheckId, Check> m) {
        m.put(FS_STAT_001, FileOpsChecks::stat001);
        m.put(FS_STAT_002, FileOpsChecks::stat002);
        m.put(FS_MKDIR_001, FileOpsChecks::mkdir001);
        m.put(FS_MOVE_001, FileOpsChecks::move001);
        m.put(FS_CHMOD_001, FileOpsChecks::chmod001);
        m.put(FS_LIST_001, FileOpsChecks::list001);
        m.put(FS_ARCHIVE_001, FileOpsChecks::arch001);
        m.put(FS_ARCHIVE_002, FileOpsChecks::arch002);
        m.put(FS_ARCHIVE_003, FileOpsChecks::arch003);
        m.put(FS_CONFINED_001, FileOpsChecks::conf001);
    }

    /** A query value: every byte outside the unreserved set percent-encoded, '/' included. */
    static String q(String path) {
        return escape(path, false);
    }

    static Reply post(CheckContext ctx, String route) throws Exception {
        return ctx.rest().send("POST", FS + route, new byte[0]);
    }

    static JsonNode stat(CheckContext ctx, String path) throws Exception {
        Reply r = ctx.rest().get(FS + "stat?path=" + q(path));
        Expect.status(r, 200);
        return Expect.json(r);
    }

    static void stat001(CheckContext ctx) throws Exception {
        String p = ctx.path("f.txt");
        ctx.putFixture(p, utf8("hello"));
        JsonNode s = stat(ctx, p);
        Expect.equal("type", "file", s.path("type").asString());
        Expect.equal("size", 5L, s.path("size").asLong());
        Expect.that(s.path("mode").asString().matches("^[0-7]{4}$"), "mode is four octal digits: " + s);
        Expect.that(!s.path("modified_at").asString().isEmpty(), "modified_at is present: " + s);
        String etag = ctx.rest().head(enc(p)).header("ETag");
        Expect.equal("etag (the one GET sends)", etag, s.path("etag").asString());
    }

    static void stat002(CheckContext ctx) throws Exception {
        String dir = ctx.mkdir();
        ctx.sh("cd " + io.sandboxd.conformance.suite.Paths.q(dir) + " && echo x > t && ln -s t in && ln -s /etc out");
        JsonNode in = stat(ctx, dir + "/in");
        Expect.equal("type", "symlink", in.path("type").asString());
        Expect.equal("link_target", "t", in.path("link_target").asString());
        Expect.equal("link_resolves", "inside", in.path("link_resolves").asString());
        Expect.equal(
                "link_resolves of a link to /etc",
                "outside",
                stat(ctx, dir + "/out").path("link_resolves").asString());
    }

    static void mkdir001(CheckContext ctx) throws Exception {
        String p = ctx.path("a/b/c");
        Expect.status(post(ctx, "mkdir?parents=true&path=" + q(p)), 201);
        Expect.equal("type", "directory", stat(ctx, p).path("type").asString());
        Expect.status(post(ctx, "mkdir?parents=true&path=" + q(p)), 204);
        Expect.error(post(ctx, "mkdir?path=" + q(p)), 409, "CONFLICT");
    }

    static void move001(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("a"), utf8("A"));
        ctx.putFixture(ctx.path("b"), utf8("B"));
        String move = "move?from=" + q(ctx.path("a")) + "&to=" + q(ctx.path("b"));
        Expect.error(post(ctx, move), 409, "CONFLICT");
        Expect.bytes(
                "b untouched", utf8("B"), ctx.rest().get(enc(ctx.path("b"))).body());
        Expect.status(post(ctx, move + "&overwrite=true"), 204);
        Expect.bytes("b replaced", utf8("A"), ctx.rest().get(enc(ctx.path("b"))).body());
        ctx.putFixture(ctx.path("d/sub/f"), utf8("x"));
        Expect.error(
                post(ctx, "move?from=" + q(ctx.path("d")) + "&to=" + q(ctx.path("d/sub/in"))), 400, "INVALID_ARGUMENT");
    }

    static void chmod001(CheckContext ctx) throws Exception {
        String p = ctx.path("f");
        ctx.putFixture(p, utf8("x"));
        Expect.status(post(ctx, "chmod?mode=0640&path=" + q(p)), 204);
        Expect.equal("mode", "0640", stat(ctx, p).path("mode").asString());
        Expect.error(post(ctx, "chmod?mode=4755&path=" + q(p)), 400, "INVALID_ARGUMENT");
        Expect.equal(
                "mode after a refused chmod", "0640", stat(ctx, p).path("mode").asString());
    }

    static List<String> paths(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.path("entries").forEach(e -> out.add(e.path("path").asString()));
        return out;
    }

    static void list001(CheckContext ctx) throws Exception {
        for (String f : new String[] {"b/2", "a/x/1", "a/2", "a-", "c"}) {
            ctx.putFixture(ctx.path("t/" + f), new byte[0]);
        }
        String base = FS + "list?depth=3&path=" + q(ctx.path("t"));
        Reply whole = ctx.rest().get(base + "&limit=1000");
        Expect.status(whole, 200);
        List<String> all = paths(Expect.json(whole));
        Expect.equal("walk order", List.of("a", "a/2", "a/x", "a/x/1", "a-", "b", "b/2", "c"), all);
        List<String> paged = new ArrayList<>();
        String cursor = null;
        for (int i = 0; i < 20; i++) {
            Reply r = ctx.rest().get(base + "&limit=3" + (cursor == null ? "" : "&cursor=" + escape(cursor, false)));
            Expect.status(r, 200);
            JsonNode page = Expect.json(r);
            paged.addAll(paths(page));
            if (!page.has("next_cursor")) {
                Expect.equal("pages put together", all, paged);
                return;
            }
            cursor = page.path("next_cursor").asString();
        }
        throw fail("paging did not end after 20 pages of 3");
    }

    static void arch001(CheckContext ctx) throws Exception {
        String dir = ctx.mkdir();
        ctx.sh("cd " + io.sandboxd.conformance.suite.Paths.q(dir)
                + " && mkdir -p src/sub src/empty && printf hello > src/sub/f && chmod 0750 src/sub/f");
        Reply tar = ctx.rest().get(FS + "archive?path=" + q(dir + "/src"));
        Expect.status(tar, 200);
        Reply up = ctx.rest().send("PUT", FS + "archive?path=" + q(dir + "/copy"), tar.body());
        Expect.status(up, 200);
        Expect.bytes(
                "copied content",
                utf8("hello"),
                ctx.rest().get(enc(dir + "/copy/sub/f")).body());
        Expect.equal(
                "copied mode",
                "0750",
                stat(ctx, dir + "/copy/sub/f").path("mode").asString());
        Expect.equal(
                "copied empty dir",
                "directory",
                stat(ctx, dir + "/copy/empty").path("type").asString());
    }

    static void arch002(CheckContext ctx) throws Exception {
        String dir = ctx.mkdir();
        Reply r = ctx.rest().send("PUT", FS + "archive?path=" + q(dir + "/t"), tarWithOneFile("../escaped", "x"));
        Expect.error(r, 400, "INVALID_ARGUMENT");
        Expect.error(ctx.rest().get(FS + "stat?path=" + q(dir + "/t")), 404, "NOT_FOUND");
        Expect.error(ctx.rest().get(FS + "stat?path=" + q(dir + "/escaped")), 404, "NOT_FOUND");
    }

    static void arch003(CheckContext ctx) throws Exception {
        String dir = ctx.mkdir();
        Expect.error(
                ctx.rest().send("PUT", FS + "archive?sync=maybe&path=" + q(dir + "/t"), tarWithOneFile("f", "x")),
                400,
                "INVALID_ARGUMENT");
        Expect.error(ctx.rest().get(FS + "stat?path=" + q(dir + "/t")), 404, "NOT_FOUND");
        Reply up = ctx.rest()
                .send("PUT", FS + "archive?sync=false&path=" + q(dir + "/t"), tarWithOneFile("f", "unsynced"));
        Expect.status(up, 200);
        Expect.bytes(
                "content of an unsynced upload",
                utf8("unsynced"),
                ctx.rest().get(enc(dir + "/t/f")).body());
    }

    static void conf001(CheckContext ctx) throws Exception {
        String dir = ctx.mkdir();
        ctx.sh("cd " + io.sandboxd.conformance.suite.Paths.q(dir) + " && ln -s / out");
        String out = q(dir + "/out/tmp");
        for (Reply r : new Reply[] {
            ctx.rest().get(FS + "stat?path=..%2F..%2F..%2F..%2Fetc"),
            ctx.rest().get(FS + "stat?follow=true&path=" + out),
            ctx.rest().get(FS + "list?path=" + out),
            post(ctx, "mkdir?parents=true&path=" + out + "%2Fx"),
            post(ctx, "move?from=" + q(ctx.path("nothing")) + "&to=" + out + "%2Fx"),
            ctx.rest().get(FS + "archive?path=" + out)
        }) {
            Expect.error(r, 403, "PERMISSION_DENIED");
        }
    }

    /** A ustar archive of one regular file, whatever its name: tar tools would refuse to make this one. */
    static byte[] tarWithOneFile(String name, String content) {
        byte[] h = new byte[512];
        byte[] n = utf8(name);
        System.arraycopy(n, 0, h, 0, n.length);
        octal(h, 100, 8, 0644);
        octal(h, 108, 8, 0);
        octal(h, 116, 8, 0);
        octal(h, 124, 12, content.length());
        octal(h, 136, 12, 1_700_000_000L);
        java.util.Arrays.fill(h, 148, 156, (byte) ' ');
        h[156] = '0';
        System.arraycopy(utf8("ustar\0" + "00"), 0, h, 257, 8);
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        octal(h, 148, 7, sum);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(h);
        byte[] data = java.util.Arrays.copyOf(utf8(content), 512);
        out.writeBytes(data);
        out.writeBytes(new byte[1024]);
        return out.toByteArray();
    }

    private static void octal(byte[] h, int at, int len, long v) {
        String s = String.format("%0" + (len - 1) + "o", v);
        System.arraycopy(utf8(s), 0, h, at, len - 1);
    }
}
