package io.sandboxd.conformance.checks;

import static io.sandboxd.conformance.suite.CheckId.*;
import static io.sandboxd.conformance.suite.Expect.fail;
import static io.sandboxd.conformance.suite.Expect.utf8;
import static io.sandboxd.conformance.suite.Paths.enc;
import static io.sandboxd.conformance.suite.Paths.escape;
import static io.sandboxd.conformance.suite.Paths.lit;
import static io.sandboxd.conformance.suite.Paths.q;

import io.sandboxd.client.Command;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.CheckSkipped;
import io.sandboxd.conformance.suite.Expect;
import io.sandboxd.conformance.suite.Reply;
import io.sandboxd.testkit.raw.RawHttp;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.databind.JsonNode;

/** Checks of runtime-contract §2.1–§2.5: paths, errors, GET/HEAD, PUT and DELETE of /v1/files. */
public final class FileChecks {
    private FileChecks() {}

    public static void register(Map<CheckId, Check> m) {
        m.put(FS_PATH_001, FileChecks::path001);
        m.put(FS_PATH_002, FileChecks::path002);
        m.put(FS_PATH_003, FileChecks::path003);
        m.put(FS_PATH_004, FileChecks::path004);
        m.put(FS_PATH_005, FileChecks::path005);
        m.put(FS_PATH_006, FileChecks::path006);
        m.put(FS_PATH_007, FileChecks::path007);
        m.put(FS_PATH_008, FileChecks::path008);
        m.put(FS_PATH_009, FileChecks::path009);
        m.put(FS_PATH_010, FileChecks::path010);
        m.put(FS_PATH_011, FileChecks::path011);
        m.put(FS_PATH_012, FileChecks::path012);
        m.put(FS_PATH_013, FileChecks::path013);
        m.put(FS_PATH_014, FileChecks::path014);
        m.put(FS_PATH_015, FileChecks::path015);
        m.put(FS_ERR_001, FileChecks::err001);
        m.put(FS_ERR_002, FileChecks::err002);
        m.put(FS_ERR_003, FileChecks::err003);
        m.put(FS_ERR_004, FileChecks::err004);
        m.put(FS_ERR_005, FileChecks::err005);
        m.put(FS_GET_001, FileChecks::get001);
        m.put(FS_GET_002, FileChecks::get002);
        m.put(FS_GET_003, FileChecks::get003);
        m.put(FS_GET_004, FileChecks::get004);
        m.put(FS_GET_005, FileChecks::get005);
        m.put(FS_GET_006, FileChecks::get006);
        m.put(FS_GET_007, FileChecks::get007);
        m.put(FS_GET_008, FileChecks::get008);
        m.put(FS_GET_009, FileChecks::get009);
        m.put(FS_GET_010, FileChecks::get010);
        m.put(FS_GET_011, FileChecks::get011);
        m.put(FS_GET_012, FileChecks::get012);
        m.put(FS_GET_013, FileChecks::get013);
        m.put(FS_GET_014, ctx -> Expect.error(ctx.rest().get(enc(ctx.path("missing.txt"))), 404, "NOT_FOUND"));
        m.put(FS_GET_015, FileChecks::get015);
        m.put(FS_GET_016, FileChecks::get016);
        m.put(FS_GET_017, FileChecks::get017);
        m.put(FS_PUT_001, FileChecks::put001);
        m.put(FS_PUT_002, FileChecks::put002);
        m.put(FS_PUT_003, FileChecks::put003);
        m.put(FS_PUT_004, FileChecks::put004);
        m.put(FS_PUT_005, FileChecks::put005);
        m.put(FS_PUT_006, FileChecks::put006);
        m.put(FS_PUT_007, FileChecks::put007);
        m.put(FS_PUT_008, FileChecks::put008);
        m.put(FS_PUT_009, FileChecks::put009);
        m.put(FS_PUT_010, FileChecks::put010);
        m.put(FS_PUT_011, FileChecks::put011);
        m.put(FS_PUT_012, FileChecks::put012);
        m.put(FS_PUT_013, ctx -> digest(ctx, true));
        m.put(FS_PUT_014, ctx -> digest(ctx, false));
        m.put(FS_PUT_015, FileChecks::put015);
        m.put(FS_PUT_016, FileChecks::put016);
        m.put(FS_DEL_001, FileChecks::del001);
        m.put(FS_DEL_002, ctx -> Expect.error(ctx.rest().delete(enc(ctx.path("missing.txt"))), 404, "NOT_FOUND"));
        m.put(FS_DEL_003, FileChecks::del003);
        m.put(FS_DEL_004, FileChecks::del004);
        m.put(FS_DEL_005, FileChecks::del005);
        m.put(FS_DEL_006, FileChecks::del006);
        m.put(FS_DEL_007, FileChecks::del007);
        m.put(FS_DEL_008, FileChecks::del008);
    }

    // ---- helpers ----

    static byte[] sample(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + (i >> 8));
        }
        return b;
    }

    /** GET of a file that must succeed with exactly {@code want}. */
    static void expectContent(CheckContext ctx, String target, byte[] want, String why) throws Exception {
        Reply r = ctx.rest().get(target);
        if (r.status() != 200) {
            throw fail(why + ": GET " + target + " expected 200 with " + want.length + " bytes, got " + r.describe());
        }
        Expect.bytes(why + ": body of GET " + target, want, r.body());
    }

    /** Content as a process in the runtime sees it (proves where the file really is). */
    static void expectOnDisk(CheckContext ctx, String relPath, String want, String why) {
        String got = ctx.sh("cat " + q(relPath) + " 2>/dev/null || printf '(no such file)'");
        Expect.equal(why + ": content of <root>/" + relPath + " as seen by Execute `cat`", want, got);
    }

    static void expect2xx(Reply r) {
        if (r.status() / 100 != 2) {
            throw fail(r.request() + ": expected success (2xx), got " + r.describe());
        }
    }

    /** GET of a directory listing: 200 + JSON object with an entries array. */
    static JsonNode listing(CheckContext ctx, String target) throws Exception {
        Reply r = ctx.rest().get(target);
        if (r.status() != 200) {
            throw fail("GET " + target + " (a directory): expected 200 with a JSON listing, got " + r.describe());
        }
        JsonNode body = Expect.json(r);
        if (!body.path("entries").isArray()) {
            throw fail("GET " + target + ": listing must have an \"entries\" array, got " + r.describe());
        }
        return body;
    }

    static List<String> names(JsonNode listing) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : listing.path("entries")) {
            out.add(e.path("name").isString() ? e.path("name").stringValue() : String.valueOf(e.path("name")));
        }
        return out;
    }

    static JsonNode entry(JsonNode listing, String name) {
        for (JsonNode e : listing.path("entries")) {
            if (name.equals(Expect.str(e.path("name")))) {
                return e;
            }
        }
        return null;
    }

    static void forbidden(Reply r, String why) {
        if (r.status() / 100 == 3) {
            throw fail(r.request() + " (" + why + "): expected 403 PERMISSION_DENIED, got a redirect " + r.describe()
                    + " Location: " + r.header("Location"));
        }
        if (r.request().startsWith("HEAD")) {
            Expect.status(r, 403);
        } else {
            Expect.error(r, 403, "PERMISSION_DENIED");
        }
    }

    static String link(CheckContext ctx, String target, String linkRel) {
        return ctx.sh("ln -s " + q(target) + " " + q(linkRel));
    }

    // ---- §2.1 paths ----

    static void path001(CheckContext ctx) throws Exception {
        String p = ctx.path("dir/sub/file.txt");
        expect2xx(ctx.rest().put(enc(p), utf8("encoded"), "Content-Type", "application/octet-stream"));
        expectOnDisk(ctx, p, "encoded", "after PUT " + enc(p));
        expectContent(ctx, enc(p), utf8("encoded"), "encoded path");
    }

    static void path002(CheckContext ctx) throws Exception {
        String a = ctx.path("lit/sub/a.txt");
        expect2xx(ctx.rest().put(lit(a), utf8("literal-put")));
        expectContent(ctx, enc(a), utf8("literal-put"), "PUT with literal slashes, GET with %2F");
        expectOnDisk(ctx, a, "literal-put", "after PUT " + lit(a));
        String b = ctx.path("lit/sub/b.txt");
        expect2xx(ctx.rest().put(enc(b), utf8("encoded-put")));
        expectContent(ctx, lit(b), utf8("encoded-put"), "PUT with %2F, GET with literal slashes");
    }

    static void path003(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("f.txt"), utf8("x"));
        JsonNode l = listing(ctx, "/v1/files/");
        Expect.that(
                names(l).contains(ctx.suite().scratch()),
                "GET /v1/files/ must list the root, which holds the scratch directory "
                        + ctx.suite().scratch() + "; got entries " + names(l));
        JsonNode e = entry(l, ctx.suite().scratch());
        Expect.equal(
                "type of " + ctx.suite().scratch() + " in GET /v1/files/",
                "directory",
                e == null ? null : Expect.str(e.path("type")));
    }

    static void path004(CheckContext ctx) throws Exception {
        String p = ctx.path("etc/passwd");
        ctx.putFixture(p, utf8("not-the-host-passwd"));
        expectContent(ctx, "/v1/files/%2F" + escape(p, false), utf8("not-the-host-passwd"), "leading %2F re-rooted");
        String n = ctx.path("rerooted.txt");
        expect2xx(ctx.rest().put("/v1/files/%2F" + escape(n, false), utf8("rerooted")));
        expectOnDisk(ctx, n, "rerooted", "after PUT /v1/files/%2F" + escape(n, false));
    }

    static void path005(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        String[] reads = {
            "/v1/files/%2E%2E/%2E%2E/etc/passwd",
            "/v1/files/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
            "/v1/files/%2E%2E",
            "/v1/files/" + escape(ctx.suite().scratch(), false) + "%2F%2E%2E%2F%2E%2E"
        };
        for (String t : reads) {
            forbidden(ctx.rest().get(t), "encoded .. leaves the root");
            forbidden(ctx.rest().head(t), "encoded .. leaves the root");
        }
        String w = "/v1/files/%2E%2E%2Fconformance-escape-" + ctx.suite().scratch() + ".txt";
        forbidden(ctx.rest().put(w, utf8("escaped")), "encoded .. leaves the root");
        forbidden(ctx.rest().delete(w), "encoded .. leaves the root");
    }

    static void path006(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        for (String t : new String[] {
            "/v1/files/../../etc/passwd",
            "/v1/files/" + ctx.suite().scratch() + "/../../x",
            // the literal segments climb above the URI's own root, not only above /v1/files/
            "/v1/files/a/b/../../../../../etc/passwd"
        }) {
            forbidden(ctx.rest().get(t), "literal .. leaves the root");
            forbidden(ctx.rest().head(t), "literal .. leaves the root");
        }
        String w = "/v1/files/../conformance-escape-" + ctx.suite().scratch() + ".txt";
        forbidden(ctx.rest().put(w, utf8("escaped")), "literal .. leaves the root");
        forbidden(ctx.rest().delete(w), "literal .. leaves the root");
    }

    static void path007(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        String t = enc(ctx.path("../../../x"));
        forbidden(ctx.rest().get(t), "encoded segment with .. leaves the root");
        forbidden(
                ctx.rest()
                        .put(
                                enc(ctx.path("../../../conformance-escape-"
                                        + ctx.suite().scratch() + ".txt")),
                                utf8("escaped")),
                "encoded segment with .. leaves the root");
    }

    static void path008(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("f.txt"), utf8("dots"));
        for (String t : new String[] {
            "/v1/files/./" + lit(ctx.dir()).substring(10) + "/./f.txt",
            "/v1/files/" + lit(ctx.dir()).substring(10) + "//f.txt",
            "/v1/files//" + lit(ctx.path("f.txt")).substring(10)
        }) {
            Reply r = ctx.rest().get(t);
            Expect.that(
                    r.status() == 200 && Arrays.equals(r.body(), utf8("dots")),
                    "GET " + t + ": '.' segments and repeated slashes must be ignored (200 \"dots\", no redirect), got "
                            + r.describe());
        }
    }

    static void path009(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("real/target.txt"), utf8("via-link"));
        link(ctx, "real", ctx.path("dlink"));
        link(ctx, "real/target.txt", ctx.path("flink"));
        expectContent(
                ctx,
                enc(ctx.path("dlink/target.txt")),
                utf8("via-link"),
                "through a symlinked directory inside the root");
        expectContent(ctx, enc(ctx.path("flink")), utf8("via-link"), "a symlink to a file inside the root");
    }

    static void path010(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        String outside = Fixtures.outsideTarget(ctx.suite().rootAbs());
        ctx.mkdir();
        link(ctx, outside, ctx.path("out"));
        String name = "conformance-escape-" + ctx.suite().scratch() + ".txt";
        try {
            forbidden(ctx.rest().get(enc(ctx.path("out"))), "symlink to " + outside);
            forbidden(ctx.rest().head(enc(ctx.path("out"))), "symlink to " + outside);
            forbidden(ctx.rest().get(enc(ctx.path("out/" + name))), "path through a symlink to " + outside);
            forbidden(
                    ctx.rest().put(enc(ctx.path("out/" + name)), utf8("escaped")),
                    "PUT through a symlink to " + outside);
            forbidden(
                    ctx.rest().put(enc(ctx.path("out/newdir/" + name)), utf8("escaped")),
                    "PUT through a symlink to " + outside);
            forbidden(ctx.rest().delete(enc(ctx.path("out/" + name))), "DELETE through a symlink to " + outside);
        } finally {
            ctx.sh("rm -f " + q(outside + "/" + name) + "; rm -rf " + q(outside + "/newdir/" + name) + "; true");
        }
    }

    static void path011(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        String outside;
        try {
            outside = ctx.sh("d=$(mktemp -d) && printf OUTSIDE-SECRET > \"$d/secret\" && echo \"$d\"")
                    .trim();
        } catch (RuntimeException e) {
            throw new CheckSkipped("cannot create a directory outside the root with mktemp -d: " + e.getMessage());
        }
        try {
            ctx.putFixture(ctx.path("inside/secret"), utf8("inside"));
            String l = ctx.path("link");
            link(ctx, "inside", l);
            StartRecorder swapper = ctx.start(
                    Command.shell("i=0; while [ $i -lt 20000 ]; do ln -sfn " + q(outside) + " " + q(l)
                            + "; ln -sfn inside " + q(l) + "; i=$((i+1)); done"),
                    Duration.ofSeconds(30));
            ctx.init(swapper);
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
            int requests = 0;
            while (System.nanoTime() < until && !swapper.isEnded()) {
                Reply r = ctx.rest().get(enc(l + "/secret"));
                requests++;
                Expect.that(
                        !new String(r.body(), StandardCharsets.ISO_8859_1).contains("OUTSIDE-SECRET"),
                        "GET " + enc(l + "/secret") + " while the link flips between inside/ and " + outside
                                + " returned the file outside the root (request " + requests + "): " + r.describe());
            }
            ctx.cancel(swapper);
        } finally {
            ctx.sh("rm -rf " + q(outside));
        }
    }

    static void path012(CheckContext ctx) throws Exception {
        String t = enc(ctx.dir()) + "%2Fa%00b.txt";
        Expect.error(ctx.rest().get(t), 400, "INVALID_ARGUMENT");
        Expect.error(ctx.rest().put(t, utf8("x")), 400, "INVALID_ARGUMENT");
    }

    static void path013(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("file.txt"), utf8("x"));
        Expect.error(ctx.rest().get(enc(ctx.path("file.txt/x"))), 404, "NOT_FOUND");
        Expect.error(ctx.rest().delete(enc(ctx.path("file.txt/x"))), 404, "NOT_FOUND");
    }

    static void path014(CheckContext ctx) throws Exception {
        String longName = "n".repeat(300);
        ctx.putFixture(ctx.path("keep.txt"), utf8("x"));
        Expect.error(ctx.rest().get(enc(ctx.path(longName))), 400, "INVALID_ARGUMENT");
        Expect.error(ctx.rest().put(enc(ctx.path(longName)), utf8("x")), 400, "INVALID_ARGUMENT");
    }

    /** The bytes of every name in {@code dir} as a process sees them, as hex without spaces, in byte order. */
    static String namesOnDisk(CheckContext ctx, String dir) {
        return ctx.sh("cd " + q(dir) + " && LC_ALL=C; export LC_ALL; for f in *; do printf %s \"$f\" | od -An -tx1;"
                        + " echo /; done")
                .replaceAll("\\s", "");
    }

    static void path015(CheckContext ctx) throws Exception {
        String dir = ctx.path("bytes");
        ctx.sh("mkdir -p " + q(dir) + " && printf made > " + q(dir) + "/\"$(printf '\\377\\376')\"");
        String ffFe = enc(dir) + "%2F%FF%FE";
        expectContent(ctx, ffFe, utf8("made"), "the file named by the bytes FF FE (made by a process)");
        Expect.equal(
                "names in GET " + enc(dir) + " (each byte that is not UTF-8 as U+FFFD)",
                List.of("\uFFFD\uFFFD"),
                names(listing(ctx, enc(dir))));
        expect2xx(ctx.rest().put(ffFe, utf8("overwritten")));
        expectContent(ctx, ffFe, utf8("overwritten"), "GET after a PUT by the same bytes");
        // C3 28: a two-byte sequence broken by its second byte, made through the API this time
        expect2xx(ctx.rest().put(enc(dir) + "%2F%C3%28", utf8("api")));
        Expect.equal("bytes of the names in " + dir + " (od -tx1)", "c328/fffe/", namesOnDisk(ctx, dir));
        Expect.status(ctx.rest().delete(ffFe), 204);
        Expect.status(ctx.rest().get(ffFe), 404);
        Expect.equal("bytes of the names left in " + dir + " (od -tx1)", "c328/", namesOnDisk(ctx, dir));
        Expect.status(ctx.rest().delete(enc(dir) + "?recursive=true"), 204);
        Expect.status(ctx.rest().get(enc(dir)), 404);
    }

    // ---- §2.2 errors ----

    static List<Reply> handlerErrors(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("full/a.txt"), utf8("x"));
        List<Reply> out = new ArrayList<>();
        out.add(ctx.rest().get(enc(ctx.path("missing.txt"))));
        out.add(ctx.rest().get("/v1/files/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd"));
        out.add(ctx.rest().put(enc(ctx.path("m.txt")) + "?mode=0999", utf8("x")));
        out.add(ctx.rest().delete(enc(ctx.path("full"))));
        out.add(ctx.rest().delete(enc(ctx.path("full/a.txt")) + "?recursive=banana"));
        return out;
    }

    static void err001(CheckContext ctx) throws Exception {
        for (Reply r : handlerErrors(ctx)) {
            Expect.that(r.status() >= 400, r.request() + ": expected an error status, got " + r.describe());
            Expect.errorBody(r);
        }
    }

    static void err002(CheckContext ctx) throws Exception {
        for (String t : new String[] {"/v1/no-such-route", "/no-such-route"}) {
            Reply r = ctx.rest().get(t);
            Expect.status(r, 404);
            Expect.errorBody(r);
        }
    }

    static void err003(CheckContext ctx) throws Exception {
        for (String[] mt :
                new String[][] {{"POST", enc(ctx.path("x.txt"))}, {"POST", "/v1/health"}, {"DELETE", "/v1/metadata"}}) {
            Reply r = ctx.rest().send(mt[0], mt[1], new byte[0]);
            Expect.status(r, 405);
            String allow = r.header("Allow");
            Expect.that(
                    allow != null && !allow.isBlank(),
                    r.request() + ": a 405 must carry an Allow header, got " + r.describe() + " with headers "
                            + r.headers());
            Expect.errorBody(r);
        }
    }

    static void err004(CheckContext ctx) throws Exception {
        List<Reply> all = new ArrayList<>(handlerErrors(ctx));
        ctx.putFixture(ctx.path("file.txt"), utf8("x"));
        all.add(ctx.rest().get(enc(ctx.path("file.txt/x"))));
        all.add(ctx.rest().get(enc(ctx.dir()) + "%2Fa%00b"));
        all.add(ctx.rest().get(enc(ctx.path("n".repeat(300)))));
        all.add(ctx.rest().put(enc(ctx.dir()), utf8("x")));
        all.add(ctx.rest()
                .put(
                        enc(ctx.path("mp.txt")),
                        utf8("--b\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nv\r\n--b--\r\n"),
                        "Content-Type",
                        "multipart/form-data; boundary=b"));
        List<String> fivexx = new ArrayList<>();
        for (Reply r : all) {
            if (r.status() >= 500) {
                fivexx.add(r.request() + " -> " + r.describe());
            }
        }
        Expect.that(fivexx.isEmpty(), "client errors answered with 5xx (the SDKs retry those): " + fivexx);
    }

    static void err005(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        String root = ctx.suite().rootAbs();
        String outside = Fixtures.outsideTarget(root);
        ctx.putFixture(ctx.path("file.txt"), utf8("x"));
        link(ctx, outside, ctx.path("out"));
        List<String> leaks = new ArrayList<>();
        for (String rel : new String[] {
            "../../etc/passwd",
            ctx.path("out/x"),
            ctx.path("file.txt/x"),
            ctx.path("n".repeat(300)),
            ctx.path("missing")
        }) {
            Reply r = ctx.rest().get(enc(rel));
            String msg;
            try {
                msg = Expect.messageOf(r);
            } catch (RuntimeException e) {
                msg = r.bodyText();
            }
            String leak = Fixtures.leakedPath(msg, root, rel);
            if (leak != null) {
                leaks.add(r.request() + " -> " + Expect.excerpt(msg, 200) + " reveals " + leak);
            }
        }
        Expect.that(leaks.isEmpty(), "error messages reveal host paths outside the root: " + leaks);
    }

    // ---- §2.3 GET / HEAD ----

    static void get001(CheckContext ctx) throws Exception {
        byte[] content = sample(70_000);
        ctx.putFixture(ctx.path("bin.dat"), content);
        Reply r = ctx.rest().get(enc(ctx.path("bin.dat")));
        Expect.status(r, 200);
        Expect.equal(r.request() + ": Content-Type", "application/octet-stream", r.mediaType());
        Expect.equal(r.request() + ": Content-Length", String.valueOf(content.length), r.header("Content-Length"));
        Expect.bytes(r.request() + ": body", content, r.body());
    }

    static void get002(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("f.txt"), utf8("x"));
        Reply r = ctx.rest().get(enc(ctx.path("f.txt")));
        Expect.status(r, 200);
        String lm = r.header("Last-Modified");
        Expect.that(lm != null, r.request() + ": no Last-Modified header; headers " + r.headers());
        try {
            ZonedDateTime t = ZonedDateTime.parse(lm, DateTimeFormatter.RFC_1123_DATE_TIME);
            Expect.that(
                    lm.endsWith("GMT") && Math.abs(t.toEpochSecond() - System.currentTimeMillis() / 1000) < 86400 * 365,
                    r.request() + ": Last-Modified must be an HTTP-date in GMT near now, got \"" + lm + "\"");
        } catch (java.time.format.DateTimeParseException e) {
            throw fail(r.request() + ": Last-Modified \"" + lm
                    + "\" is not an HTTP-date (e.g. \"Sun, 06 Nov 1994 08:49:37 GMT\")");
        }
    }

    static void get003(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("f.txt"), utf8("x"));
        Reply r = ctx.rest().get(enc(ctx.path("f.txt")));
        Expect.status(r, 200);
        Expect.that(
                r.header("ETag") != null && !r.header("ETag").isBlank(),
                r.request() + ": no ETag header; headers " + r.headers());
        Expect.equal(r.request() + ": Accept-Ranges", "bytes", r.header("Accept-Ranges"));
    }

    static void get004(CheckContext ctx) throws Exception {
        byte[] content = sample(1000);
        ctx.putFixture(ctx.path("r.dat"), content);
        Reply r = ctx.rest().get(enc(ctx.path("r.dat")), "Range", "bytes=2-5");
        Expect.status(r, 206);
        Expect.equal(r.request() + " Range: bytes=2-5: Content-Range", "bytes 2-5/1000", r.header("Content-Range"));
        Expect.bytes(r.request() + " Range: bytes=2-5: body", Arrays.copyOfRange(content, 2, 6), r.body());
        Reply bad = ctx.rest().get(enc(ctx.path("r.dat")), "Range", "bytes=5000-");
        Expect.status(bad, 416);
    }

    static void get005(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("c.txt"), utf8("cache"));
        Reply r = ctx.rest().get(enc(ctx.path("c.txt")));
        Expect.status(r, 200);
        String etag = r.header("ETag");
        String lm = r.header("Last-Modified");
        Expect.that(etag != null && lm != null, r.request() + ": needs ETag and Last-Modified; headers " + r.headers());
        Expect.status(ctx.rest().get(enc(ctx.path("c.txt")), "If-None-Match", etag), 304);
        Expect.status(ctx.rest().get(enc(ctx.path("c.txt")), "If-Modified-Since", lm), 304);
    }

    static void get006(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("d/f.txt"), utf8("x"));
        for (String t : new String[] {enc(ctx.path("d")), lit(ctx.path("d"))}) {
            Reply r = ctx.rest().get(t);
            Expect.status(r, 200);
            Expect.equal(r.request() + ": Content-Type", "application/json", r.mediaType());
            JsonNode body = Expect.json(r);
            Expect.equal(
                    r.request() + ": \"path\"",
                    "/" + ctx.path("d"),
                    body.path("path").isString() ? body.path("path").stringValue() : String.valueOf(body.get("path")));
            Expect.that(
                    body.path("entries").isArray(),
                    r.request() + ": \"entries\" must be an array, got " + r.describe());
        }
    }

    static void get007(CheckContext ctx) throws Exception {
        ctx.sh("mkdir -p " + q(ctx.path("empty")));
        Reply r = ctx.rest().get(enc(ctx.path("empty")));
        Expect.status(r, 200);
        JsonNode body = Expect.json(r);
        Expect.that(
                body.has("entries")
                        && body.get("entries").isArray()
                        && body.get("entries").isEmpty(),
                r.request() + " (empty directory): expected \"entries\": [], got " + r.describe());
    }

    static void get008(CheckContext ctx) throws Exception {
        List<String> files = List.of("b", "B", "a", "_x", "Z1", "a.b", "ab", "\u00e9", ".hidden");
        for (String f : files) {
            ctx.putFixture(ctx.path("s/" + f), utf8(f));
        }
        List<String> want = new ArrayList<>(files);
        want.sort((x, y) ->
                Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8)));
        JsonNode l = listing(ctx, enc(ctx.path("s")));
        Expect.equal("names in GET " + enc(ctx.path("s")) + " (byte-wise order, no . or ..)", want, names(l));
    }

    static void get017(CheckContext ctx) throws Exception {
        String dir = ctx.path("lossy");
        ctx.sh("mkdir -p " + q(dir) + " && cd " + q(dir) + " && printf a > \"x$(printf '\\377')y\""
                + " && printf b > \"$(printf '\\357\\277\\275')\" && printf c > plain.txt");
        JsonNode l = listing(ctx, enc(dir));
        JsonNode lossy = entry(l, "x\uFFFDy");
        JsonNode real = entry(l, "\uFFFD");
        JsonNode plain = entry(l, "plain.txt");
        Expect.that(
                lossy != null && real != null && plain != null,
                "GET " + enc(dir) + ": expected entries for the bytes 78 FF 79, EF BF BD (U+FFFD) and plain.txt, got "
                        + l);
        Expect.equal(
                "name_encoded of the entry for the bytes 78 FF 79 in GET " + enc(dir),
                "x%FFy",
                Expect.str(lossy.path("name_encoded")));
        Expect.that(
                !real.has("name_encoded") && !plain.has("name_encoded"),
                "GET " + enc(dir)
                        + ": entries whose names are UTF-8 (a real U+FFFD too) must not have name_encoded, got " + l);
        expectContent(ctx, enc(dir) + "%2F" + Expect.str(lossy.path("name_encoded")), utf8("a"), "GET by name_encoded");
    }

    static void get009(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("x/f.txt"), utf8("12345"));
        ctx.sh("mkdir -p " + q(ctx.path("x/sub")) + " && chmod 640 " + q(ctx.path("x/f.txt")) + " && chmod 750 "
                + q(ctx.path("x/sub")));
        JsonNode l = listing(ctx, enc(ctx.path("x")));
        JsonNode f = entry(l, "f.txt");
        JsonNode d = entry(l, "sub");
        Expect.that(f != null && d != null, "GET " + enc(ctx.path("x")) + ": expected entries f.txt and sub, got " + l);
        String where = "entry f.txt in GET " + enc(ctx.path("x")) + " " + f;
        Expect.that(
                f.path("size").isIntegralNumber() && f.path("size").longValue() == 5,
                where + ": \"size\" must be the integer 5");
        Expect.equal(where + ": \"type\"", "file", Expect.str(f.path("type")));
        Expect.equal(where + ": \"mode\"", "0640", Expect.str(f.path("mode")));
        Expect.that(f.path("modified_at").isString(), where + ": \"modified_at\" must be a string");
        String dwhere = "entry sub in GET " + enc(ctx.path("x")) + " " + d;
        Expect.equal(dwhere + ": \"type\"", "directory", Expect.str(d.path("type")));
        Expect.equal(dwhere + ": \"mode\"", "0750", Expect.str(d.path("mode")));
        Expect.that(d.path("size").isIntegralNumber(), dwhere + ": \"size\" must be an integer");
    }

    static void get010(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("t/fresh.txt"), utf8("x"));
        ctx.putFixture(ctx.path("t/old.txt"), utf8("x"));
        ctx.sh("TZ=UTC touch -t 202401020304.05 " + q(ctx.path("t/old.txt")));
        JsonNode l = listing(ctx, enc(ctx.path("t")));
        for (JsonNode e : l.path("entries")) {
            String v = Expect.str(e.path("modified_at"));
            Expect.that(
                    v != null && v.matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z"),
                    "entry " + e.path("name")
                            + ": expected modified_at like 2026-08-06T10:00:00Z (UTC, whole seconds, Z), got "
                            + e.path("modified_at"));
        }
        Expect.equal(
                "modified_at of a file with mtime 2024-01-02 03:04:05 UTC",
                "2024-01-02T03:04:05Z",
                Expect.str(entry(l, "old.txt").path("modified_at")));
    }

    static void get011(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("t/real.txt"), utf8("1234567"));
        ctx.sh("mkdir -p " + q(ctx.path("t/realdir")) + " && ln -s real.txt " + q(ctx.path("t/flink"))
                + " && ln -s realdir " + q(ctx.path("t/dlink")));
        JsonNode l = listing(ctx, enc(ctx.path("t")));
        JsonNode f = entry(l, "flink");
        JsonNode d = entry(l, "dlink");
        Expect.that(
                f != null && d != null,
                "GET " + enc(ctx.path("t")) + ": symlinks flink and dlink must be listed, got names " + names(l));
        Expect.that(
                "file".equals(Expect.str(f.path("type"))) && f.path("size").asLong() == 7,
                "symlink flink -> real.txt (7 bytes) must be listed as type file, size 7; got " + f);
        Expect.equal("type of symlink dlink -> realdir", "directory", Expect.str(d.path("type")));
    }

    static void get012(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        ctx.putFixture(ctx.path("g/normal.txt"), utf8("x"));
        ctx.sh("ln -s " + q(Fixtures.outsideTarget(ctx.suite().rootAbs())) + " " + q(ctx.path("g/escape"))
                + " && ln -s nowhere " + q(ctx.path("g/dangling")));
        JsonNode l = listing(ctx, enc(ctx.path("g")));
        Expect.equal(
                "names in GET " + enc(ctx.path("g")) + " holding normal.txt, an escaping and a dangling symlink",
                List.of("normal.txt"),
                names(l));
    }

    static void get013(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("u/keep.txt"), utf8("x"));
        try (RawHttp upload = ctx.rest()
                .startUpload(enc(ctx.path("u/up.bin")), 1 << 20, "Content-Type", "application/octet-stream")) {
            upload.send(new byte[8192]);
            Thread.sleep(500);
            JsonNode l = listing(ctx, enc(ctx.path("u")));
            Expect.equal(
                    "names in GET " + enc(ctx.path("u")) + " while an upload of up.bin is in flight",
                    List.of("keep.txt"),
                    names(l));
            upload.reset();
        }
    }

    static void get015(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("h/f.txt"), sample(1234));
        for (String t : new String[] {enc(ctx.path("h/f.txt")), enc(ctx.path("h")), enc(ctx.path("h/missing"))}) {
            Reply g = ctx.rest().get(t);
            Reply h = ctx.rest().head(t);
            Expect.that(
                    g.status() == h.status(),
                    "HEAD " + t + ": expected the status GET gets (" + g.status() + "), got " + h.describe());
            for (String name : new String[] {"Content-Type", "Content-Length", "Last-Modified", "ETag"}) {
                if (g.header(name) != null && (g.status() == 200 || name.equals("Content-Type"))) {
                    Expect.equal("HEAD " + t + ": header " + name + " (GET sent it)", g.header(name), h.header(name));
                }
            }
            Expect.that(
                    h.extraBytes().length == 0,
                    "HEAD " + t + ": expected no body, got " + h.extraBytes().length + " bytes "
                            + Expect.excerpt(h.extraBytes(), 80));
        }
    }

    static void get016(CheckContext ctx) throws Exception {
        ctx.mkdir();
        ctx.sh("mkfifo " + q(ctx.path("fifo")));
        Reply r;
        try {
            r = ctx.rest().withTimeout(Duration.ofSeconds(10)).get(enc(ctx.path("fifo")));
        } catch (java.net.SocketTimeoutException e) {
            // Unblock the runtime's reader, which waits for a writer.
            ctx.sh("(timeout 2 sh -c 'echo > " + ctx.path("fifo") + "' || true) 2>/dev/null; true");
            throw fail("GET " + enc(ctx.path("fifo")) + " (a FIFO): expected 400 at once, got no response within 10 s");
        }
        Expect.error(r, 400, "INVALID_ARGUMENT");
    }

    // ---- §2.4 PUT ----

    static void put001(CheckContext ctx) throws Exception {
        String[] types = {
            "application/octet-stream",
            "text/plain; charset=utf-8",
            null,
            "application/json",
            "multipart/mixed; boundary=x"
        };
        for (int i = 0; i < types.length; i++) {
            byte[] body = i == 3 ? utf8("{\"not\": \"parsed\"}") : sample(5000 + i);
            String p = ctx.path("raw" + i + ".bin");
            Reply r = ctx.rest().put(enc(p), body, "Content-Type", types[i]);
            expect2xx(r);
            expectContent(ctx, enc(p), body, "PUT with Content-Type " + (types[i] == null ? "(none)" : types[i]));
        }
    }

    static byte[] multipart(String boundary, List<String[]> textParts, String fileName, byte[] file) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (String[] p : textParts) {
            out.writeBytes(utf8("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + p[0] + "\"\r\n\r\n"
                    + p[1] + "\r\n"));
        }
        if (file != null) {
            out.writeBytes(utf8("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + fileName
                    + "\"; filename=\"ignored.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"));
            out.writeBytes(file);
            out.writeBytes(utf8("\r\n"));
        }
        out.writeBytes(utf8("--" + boundary + "--\r\n"));
        return out.toByteArray();
    }

    static void put002(CheckContext ctx) throws Exception {
        byte[] file = utf8("line1\r\n--not-a-boundary\r\n\u0000binary\u00ff");
        String p = ctx.path("mp.bin");
        Reply r = ctx.rest()
                .put(
                        enc(p),
                        multipart("XyZzy42", List.<String[]>of(new String[] {"meta", "ignored"}), "file", file),
                        "Content-Type",
                        "multipart/form-data; boundary=XyZzy42");
        expect2xx(r);
        expectContent(ctx, enc(p), file, "PUT multipart/form-data with a 'meta' part then the 'file' part");
    }

    static void put003(CheckContext ctx) throws Exception {
        String p = ctx.path("nofile.bin");
        Reply r = ctx.rest()
                .put(
                        enc(p),
                        multipart("b0und", List.<String[]>of(new String[] {"meta", "x"}), "other", utf8("data")),
                        "Content-Type",
                        "multipart/form-data; boundary=b0und");
        Expect.error(r, 400, "INVALID_ARGUMENT");
        Expect.status(ctx.rest().get(enc(p)), 404);
    }

    static String statMode(CheckContext ctx, String rel) {
        return ctx.sh("stat -c %a " + q(rel)).trim();
    }

    static void put004(CheckContext ctx) throws Exception {
        for (String mode : new String[] {"0755", "0600", "0640", "0000"}) {
            String p = ctx.path("m" + mode + ".sh");
            expect2xx(ctx.rest().put(enc(p) + "?mode=" + mode, utf8("#!/bin/sh\n")));
            Expect.equal(
                    "permissions of <root>/" + p + " after PUT ?mode=" + mode + " (stat -c %a)",
                    mode.replaceFirst("^0+(?=.)", "").replaceFirst("^$", "0"),
                    statMode(ctx, p));
        }
    }

    static void put005(CheckContext ctx) throws Exception {
        String p = ctx.path("default.txt");
        expect2xx(ctx.rest().put(enc(p), utf8("x")));
        Expect.equal("permissions of <root>/" + p + " after PUT without mode (stat -c %a)", "644", statMode(ctx, p));
    }

    static void put006(CheckContext ctx) throws Exception {
        for (String mode : new String[] {"0999", "777", "abcd", "01777", "1644", "0o644", "-0644"}) {
            String p = ctx.path("bad-" + mode + ".txt");
            Expect.error(ctx.rest().put(enc(p) + "?mode=" + escape(mode, false), utf8("x")), 400, "INVALID_ARGUMENT");
            Expect.status(ctx.rest().get(enc(p)), 404);
        }
    }

    static void put007(CheckContext ctx) throws Exception {
        String p = ctx.path("a/b/c/deep.txt");
        expect2xx(ctx.rest().put(enc(p), utf8("deep")));
        expectOnDisk(ctx, p, "deep", "PUT into missing parents");
    }

    static void put008(CheckContext ctx) throws Exception {
        ctx.sh("mkdir -p " + q(ctx.path("isdir/inner")));
        Expect.error(ctx.rest().put(enc(ctx.path("isdir")), utf8("x")), 400, "INVALID_ARGUMENT");
        Expect.error(ctx.rest().put("/v1/files/", utf8("x")), 400, "INVALID_ARGUMENT");
        JsonNode l = listing(ctx, enc(ctx.path("isdir")));
        Expect.equal("directory isdir after a rejected PUT onto it", List.of("inner"), names(l));
    }

    static void put009(CheckContext ctx) throws Exception {
        int size = 256 * 1024;
        byte[] a = new byte[size];
        byte[] b = new byte[size];
        Arrays.fill(a, (byte) 'a');
        Arrays.fill(b, (byte) 'b');
        String p = ctx.path("atomic/f.bin");
        ctx.putFixture(p, a);
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> writer = pool.submit(() -> {
                try {
                    for (int i = 0; i < 24; i++) {
                        expect2xx(ctx.rest().put(enc(p), i % 2 == 0 ? b : a));
                    }
                } finally {
                    done.set(true);
                }
                return null;
            });
            int reads = 0;
            while (!done.get() || reads < 5) {
                Reply r = ctx.rest().get(enc(p));
                reads++;
                boolean whole = r.status() == 200 && (Arrays.equals(r.body(), a) || Arrays.equals(r.body(), b));
                if (!whole) {
                    byte[] body = r.body();
                    throw fail("GET " + enc(p) + " during overwrites (all 'a' or all 'b', 262144 bytes each) saw "
                            + r.status() + " with "
                            + body.length + " bytes starting "
                            + Expect.excerpt(Arrays.copyOf(body, Math.min(16, body.length)), 16)
                            + ": readers must see the old or the new content, never a part (read " + reads + ")");
                }
                if (reads > 2000) {
                    break;
                }
            }
            writer.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new RuntimeException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
        Expect.equal(
                "entries of " + ctx.path("atomic") + " after 25 PUTs (no temp files left)",
                List.of("f.bin"),
                names(listing(ctx, enc(ctx.path("atomic")))));
    }

    static void put010(CheckContext ctx) throws Exception {
        String p = ctx.path("n.txt");
        for (String what : new String[] {"create", "overwrite"}) {
            Reply r = ctx.rest().put(enc(p), utf8(what));
            Expect.that(
                    r.status() == 204 && r.body().length == 0 && r.extraBytes().length == 0,
                    "PUT " + enc(p) + " (" + what + "): expected 204 No Content without a body, got " + r.describe()
                            + (r.extraBytes().length > 0 ? " plus " + r.extraBytes().length + " body bytes" : ""));
        }
    }

    static void put011(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("ab/keep.txt"), utf8("x"));
        RawHttp upload = ctx.rest()
                .startUpload(enc(ctx.path("ab/aborted.bin")), 1 << 20, "Content-Type", "application/octet-stream");
        upload.send(new byte[4096]);
        Thread.sleep(200);
        upload.reset();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<String> n;
        do {
            Thread.sleep(100);
            n = ctx.sh("ls -A " + q(ctx.path("ab"))).lines().toList();
        } while (!n.equals(List.of("keep.txt")) && System.nanoTime() < deadline);
        Expect.equal(
                "files in " + ctx.path("ab")
                        + " (ls -A) 5 s after an upload of aborted.bin was cut after 4096 of 1048576 bytes",
                List.of("keep.txt"),
                n);
    }

    static void put012(CheckContext ctx) throws Exception {
        if (ctx.suite().uid().equals("0")) {
            throw new CheckSkipped(
                    "the runtime's processes run as root (uid 0), which ignores file permissions, so a permission error cannot be provoked");
        }
        ctx.sh("mkdir -p " + q(ctx.path("ro")) + " && chmod 555 " + q(ctx.path("ro")));
        try {
            Expect.error(ctx.rest().put(enc(ctx.path("ro/f.txt")), utf8("x")), 403, "PERMISSION_DENIED");
        } finally {
            ctx.sh("chmod 755 " + q(ctx.path("ro")));
        }
    }

    static void digest(CheckContext ctx, boolean contentDigest) throws Exception {
        byte[] body = utf8("digest me");
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(body);
        byte[] wrong = MessageDigest.getInstance("SHA-256").digest(utf8("something else"));
        String header = contentDigest ? "Content-Digest" : "X-Content-SHA256";
        String good = contentDigest
                ? "sha-256=:" + Base64.getEncoder().encodeToString(sha) + ":"
                : HexFormat.of().formatHex(sha);
        String bad = contentDigest
                ? "sha-256=:" + Base64.getEncoder().encodeToString(wrong) + ":"
                : HexFormat.of().formatHex(wrong);
        String p = ctx.path("d.txt");
        expect2xx(ctx.rest().put(enc(p), body, header, good));
        expectContent(ctx, enc(p), body, "PUT with a matching " + header);
        Expect.error(ctx.rest().put(enc(p), utf8("replacement"), header, bad), 400, "INVALID_ARGUMENT");
        expectContent(ctx, enc(p), body, "after a PUT with a mismatching " + header + " (nothing may be written)");
        String fresh = ctx.path("never.txt");
        Expect.error(ctx.rest().put(enc(fresh), body, header, bad), 400, "INVALID_ARGUMENT");
        Expect.status(ctx.rest().get(enc(fresh)), 404);
    }

    static void put015(CheckContext ctx) throws Exception {
        String p = ctx.path("c.txt");
        ctx.putFixture(p, utf8("v1"));
        String e1 = ctx.rest().get(enc(p)).header("ETag");
        Expect.that(e1 != null, "GET " + enc(p) + " sent no ETag");
        Thread.sleep(1100);
        ctx.putFixture(p, utf8("v2-changed"));
        Reply stale = ctx.rest().put(enc(p), utf8("v3"), "If-Match", e1);
        Expect.error(stale, 412, "PRECONDITION_FAILED");
        expectContent(ctx, enc(p), utf8("v2-changed"), "after PUT with a stale If-Match");
        String e2 = ctx.rest().get(enc(p)).header("ETag");
        expect2xx(ctx.rest().put(enc(p), utf8("v4"), "If-Match", e2));
        expectContent(ctx, enc(p), utf8("v4"), "after PUT with the current If-Match");
    }

    static void put016(CheckContext ctx) throws Exception {
        String p = ctx.path("once.txt");
        expect2xx(ctx.rest().put(enc(p), utf8("first"), "If-None-Match", "*"));
        Expect.error(ctx.rest().put(enc(p), utf8("second"), "If-None-Match", "*"), 412, "PRECONDITION_FAILED");
        expectContent(ctx, enc(p), utf8("first"), "after a second PUT with If-None-Match: *");
    }

    // ---- §2.5 DELETE ----

    static void del001(CheckContext ctx) throws Exception {
        String p = ctx.path("gone.txt");
        ctx.putFixture(p, utf8("x"));
        Reply r = ctx.rest().delete(enc(p));
        Expect.that(
                r.status() == 204 && r.body().length == 0 && r.extraBytes().length == 0,
                r.request() + ": expected 204 No Content without a body, got " + r.describe());
        Expect.status(ctx.rest().get(enc(p)), 404);
    }

    static void del003(CheckContext ctx) throws Exception {
        String p = ctx.path("f.txt");
        ctx.putFixture(p, utf8("x"));
        for (String v : new String[] {"banana", "yes"}) {
            Expect.error(ctx.rest().delete(enc(p) + "?recursive=" + v), 400, "INVALID_ARGUMENT");
        }
        expectContent(ctx, enc(p), utf8("x"), "after DELETE with an invalid recursive");
    }

    static void del004(CheckContext ctx) throws Exception {
        String d = ctx.path("full");
        ctx.putFixture(d + "/a.txt", utf8("x"));
        Expect.error(ctx.rest().delete(enc(d)), 409, "CONFLICT");
        Expect.error(ctx.rest().delete(enc(d) + "?recursive=false"), 409, "CONFLICT");
        Expect.status(ctx.rest().delete(enc(d) + "?recursive=true"), 204);
        Expect.status(ctx.rest().get(enc(d)), 404);
    }

    static void del005(CheckContext ctx) throws Exception {
        ctx.sh("mkdir -p " + q(ctx.path("e1")) + " " + q(ctx.path("e2")));
        Expect.status(ctx.rest().delete(enc(ctx.path("e1"))), 204);
        Expect.status(ctx.rest().delete(enc(ctx.path("e2")) + "?recursive=false"), 204);
        Expect.status(ctx.rest().get(enc(ctx.path("e1"))), 404);
    }

    static void del006(CheckContext ctx) throws Exception {
        Expect.error(ctx.rest().delete("/v1/files/"), 409, "CONFLICT");
        Expect.error(ctx.rest().delete("/v1/files/?recursive=false"), 409, "CONFLICT");
        Expect.status(ctx.rest().get(enc(ctx.suite().scratch())), 200);
    }

    static void del007(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("target.txt"), utf8("t"));
        link(ctx, "target.txt", ctx.path("link"));
        Expect.status(ctx.rest().delete(enc(ctx.path("link"))), 204);
        expectContent(ctx, enc(ctx.path("target.txt")), utf8("t"), "target of a deleted symlink");
        String left = ctx.sh("ls -A " + q(ctx.dir()));
        Expect.equal("files left after DELETE of symlink link -> target.txt (ls -A)", "target.txt\n", left);
    }

    static void del008(CheckContext ctx) throws Exception {
        if (!ctx.options().allowRootWipe()) {
            throw new CheckSkipped("it deletes everything under the runtime's root; pass --allow-root-wipe to run it");
        }
        ctx.putFixture(ctx.path("f.txt"), utf8("x"));
        Expect.status(ctx.rest().delete("/v1/files/?recursive=true"), 204);
        JsonNode l = listing(ctx, "/v1/files/");
        Expect.equal("entries of the root after DELETE /v1/files/?recursive=true", List.of(), names(l));
    }
}
