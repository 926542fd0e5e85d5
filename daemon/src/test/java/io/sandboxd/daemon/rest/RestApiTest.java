package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** runtime-contract §2, statement by statement, against a real server and real files. */
class RestApiTest {
    @TempDir
    Path tmp;

    RestFixture f;
    Path root;

    @BeforeEach
    void start() throws Exception {
        f = new RestFixture(
                tmp,
                c -> c,
                Map.of(
                        "SANDBOX_ID",
                        "sb-1",
                        "SANDBOX_API_TOKEN",
                        "x",
                        "SANDBOX_MONKEY",
                        "m",
                        "SANDBOX_AUTHOR",
                        "a",
                        "OTHER",
                        "o",
                        "SANDBOX_TLS_CERT",
                        "c"));
        root = f.root;
    }

    @AfterEach
    void stop() {
        f.close();
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static void assertError(RawResponse r, int status, String code) {
        assertThat(r.status()).as(r.describe()).isEqualTo(status);
        assertThat(r.header("Content-Type")).isEqualTo("application/json");
        assertThat(r.text())
                .matches(Pattern.compile("\\{\"code\":\"" + code + "\",\"message\":\"[^\"]+.*\"}\\s*", Pattern.DOTALL));
    }

    // ---- 2.1 paths

    @Test
    void encodedAndLiteralSlashesAddressTheSameFile() throws Exception {
        assertThat(f.exchange(RawRequest.put("/v1/files/dir%2Fsub%2Ffile.txt", b("one"))
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(Files.readString(root.resolve("dir/sub/file.txt"))).isEqualTo("one");
        assertThat(f.exchange(RawRequest.get("/v1/files/dir/sub/file.txt")).text())
                .isEqualTo("one");
        assertThat(f.exchange(RawRequest.put("/v1/files/dir/sub/file.txt", b("two"))
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(f.exchange(RawRequest.get("/v1/files/dir%2Fsub%2Ffile.txt")).text())
                .isEqualTo("two");
    }

    @Test
    void emptyPathIsTheRoot() throws Exception {
        Files.writeString(root.resolve("a.txt"), "a");
        for (String t : new String[] {"/v1/files/", "/v1/files", "/v1/files/%2E", "/v1/files/%2F", "/v1/files/."}) {
            RawResponse r = f.exchange(RawRequest.get(t));
            assertThat(r.status()).as(t).isEqualTo(200);
            assertThat(r.text()).as(t).contains("\"name\":\"a.txt\"");
        }
    }

    @Test
    void leadingSlashIsReRooted() throws Exception {
        Files.createDirectories(root.resolve("etc"));
        Files.writeString(root.resolve("etc/passwd"), "fake");
        assertThat(f.exchange(RawRequest.get("/v1/files/%2Fetc%2Fpasswd")).text())
                .isEqualTo("fake");
        assertThat(f.exchange(RawRequest.get("/v1/files//etc/passwd")).text()).isEqualTo("fake");
        // the root's own absolute path addresses the same place
        assertThat(f.exchange(RawRequest.get("/v1/files/" + root.toString().substring(1) + "/etc/passwd"))
                        .status())
                .isEqualTo(404);
        assertThat(f.exchange(RawRequest.get(
                                "/v1/files/%2F" + root.toString().substring(1).replace("/", "%2F") + "%2Fetc%2Fpasswd"))
                        .text())
                .isEqualTo("fake");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/files/..",
                "/v1/files/../x",
                "/v1/files/%2E%2E/%2E%2E/etc/passwd",
                "/v1/files/a/../../x",
                "/v1/files/%2E%2E%2Fx",
                "/v1/files/a%2F..%2F..%2Fx",
                "/v1/files/%2F..%2Fetc"
            })
    void dotDotEscapeIs403NeverARedirect(String target) throws Exception {
        for (String m : new String[] {"GET", "PUT", "DELETE"}) {
            RawResponse r = f.exchange(RawRequest.of(m, target).body(m.equals("PUT") ? b("x") : null));
            assertError(r, 403, "PERMISSION_DENIED");
            assertThat(r.header("Location")).isNull();
        }
        assertThat(f.exchange(RawRequest.head(target)).status()).isEqualTo(403);
        assertThat(Files.exists(f.base.resolve("x"))).isFalse();
    }

    @Test
    void dotSegmentsAndRepeatedSlashesAreIgnored() throws Exception {
        assertThat(f.exchange(RawRequest.put("/v1/files/a/./b//c.txt", b("x"))
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(Files.readString(root.resolve("a/b/c.txt"))).isEqualTo("x");
        assertThat(f.exchange(RawRequest.get("/v1/files/a/x/../b/c.txt")).text())
                .isEqualTo("x");
    }

    @Test
    void symlinkLeavingTheRootIs403() throws Exception {
        Path outside = Files.createDirectories(f.base.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "s");
        Files.createSymbolicLink(root.resolve("link"), outside);
        Files.createSymbolicLink(root.resolve("rel"), Path.of("../outside/secret"));
        assertError(f.exchange(RawRequest.get("/v1/files/link/secret")), 403, "PERMISSION_DENIED");
        assertError(f.exchange(RawRequest.get("/v1/files/rel")), 403, "PERMISSION_DENIED");
        assertError(
                f.exchange(RawRequest.put("/v1/files/link/new.txt", b("x"))
                        .header("Content-Type", "application/octet-stream")),
                403,
                "PERMISSION_DENIED");
        assertError(
                f.exchange(RawRequest.put("/v1/files/link/sub/new.txt", b("x"))
                        .header("Content-Type", "application/octet-stream")),
                403,
                "PERMISSION_DENIED");
        assertThat(outside.resolve("new.txt")).doesNotExist();
        assertThat(outside.resolve("sub")).doesNotExist();
    }

    @Test
    void symlinkInsideTheRootIsFollowed() throws Exception {
        Files.createDirectories(root.resolve("real"));
        Files.writeString(root.resolve("real/f.txt"), "in");
        Files.createSymbolicLink(root.resolve("l"), Path.of("real"));
        Files.createSymbolicLink(root.resolve("abs"), root.resolve("real/f.txt"));
        assertThat(f.exchange(RawRequest.get("/v1/files/l/f.txt")).text()).isEqualTo("in");
        assertThat(f.exchange(RawRequest.get("/v1/files/abs")).text()).isEqualTo("in");
    }

    @Test
    void invalidPathsAre400Or404() throws Exception {
        assertError(f.exchange(RawRequest.get("/v1/files/a%00b")), 400, "INVALID_ARGUMENT");
        assertError(
                f.exchange(
                        RawRequest.put("/v1/files/a%00b", b("x")).header("Content-Type", "application/octet-stream")),
                400,
                "INVALID_ARGUMENT");
        assertError(
                f.exchange(RawRequest.get("/v1/files/%FF%FE")), 404, "NOT_FOUND"); // bytes address a name, UTF-8 or not
        assertError(f.exchange(RawRequest.get("/v1/files/a%2")), 400, "INVALID_ARGUMENT");
        assertError(f.exchange(RawRequest.get("/v1/files/" + "n".repeat(256))), 400, "INVALID_ARGUMENT");
        assertError(
                f.exchange(RawRequest.put("/v1/files/" + "n".repeat(256), b("x"))
                        .header("Content-Type", "application/octet-stream")),
                400,
                "INVALID_ARGUMENT");
        Files.writeString(root.resolve("file.txt"), "f");
        assertError(f.exchange(RawRequest.get("/v1/files/file.txt/x")), 404, "NOT_FOUND");
        assertError(
                f.exchange(RawRequest.put("/v1/files/file.txt/x", b("x"))
                        .header("Content-Type", "application/octet-stream")),
                404,
                "NOT_FOUND");
        assertError(f.exchange(RawRequest.delete("/v1/files/file.txt/x")), 404, "NOT_FOUND");
    }

    @Test
    void longestPathFullyPercentEncodedIsServed() throws Exception {
        String seg = "%C3%A9".repeat(100); // 200 bytes per name, 600 bytes on the wire
        StringBuilder t = new StringBuilder("/v1/files/");
        for (int i = 0; i < 19; i++) {
            t.append(seg).append("%2F");
        }
        t.append("f");
        assertThat(t.length()).isGreaterThan(8192);
        assertThat(f.exchange(RawRequest.put(t.toString(), b("deep"))
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(f.exchange(RawRequest.get(t.toString())).text()).isEqualTo("deep");
    }

    // ---- 2.2 errors

    @Test
    void unknownRoutesAndWrongMethodsAreJson() throws Exception {
        assertError(f.exchange(RawRequest.get("/nope")), 404, "NOT_FOUND");
        assertError(f.exchange(RawRequest.get("/v1/filesx")), 404, "NOT_FOUND");
        RawResponse r = f.exchange(RawRequest.of("POST", "/v1/files/x").body(b("")));
        assertError(r, 405, "INVALID_ARGUMENT");
        assertThat(r.header("Allow")).isEqualTo("DELETE, GET, HEAD, PUT");
        r = f.exchange(RawRequest.of("DELETE", "/v1/health"));
        assertThat(r.status()).isEqualTo(405);
        assertThat(r.header("Allow")).isEqualTo("GET, HEAD");
        assertThat(r.header("Content-Type")).isEqualTo("application/json");
    }

    @Test
    void noErrorMessageLeaksTheHostRoot() throws Exception {
        Files.writeString(root.resolve("file.txt"), "f");
        for (RawResponse r : new RawResponse[] {
            f.exchange(RawRequest.get("/v1/files/nope")),
            f.exchange(RawRequest.get("/v1/files/file.txt/x")),
            f.exchange(RawRequest.get("/v1/files/..%2F..%2Fetc")),
            f.exchange(RawRequest.put("/v1/files/", b("x")).header("Content-Type", "application/octet-stream")),
            f.exchange(RawRequest.delete("/v1/files/"))
        }) {
            assertThat(r.status()).isBetween(400, 499);
            assertThat(r.text()).doesNotContain(f.base.toString()).doesNotContain("/proc/self");
        }
    }

    // ---- 2.3 GET / HEAD

    @Test
    void fileGetHasExactHeaders() throws Exception {
        Files.writeString(root.resolve("f.bin"), "0123456789");
        Files.setLastModifiedTime(root.resolve("f.bin"), FileTime.from(Instant.parse("2026-08-06T10:00:00Z")));
        RawResponse r = f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("Accept-Encoding", "gzip"));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo("application/octet-stream");
        assertThat(r.header("Content-Length")).isEqualTo("10");
        assertThat(r.header("Content-Encoding")).isNull();
        assertThat(r.header("Last-Modified")).isEqualTo("Thu, 06 Aug 2026 10:00:00 GMT");
        assertThat(r.header("Accept-Ranges")).isEqualTo("bytes");
        assertThat(r.header("ETag")).startsWith("\"");
        assertThat(r.text()).isEqualTo("0123456789");

        RawResponse h = f.exchange(RawRequest.head("/v1/files/f.bin"));
        assertThat(h.status()).isEqualTo(200);
        assertThat(h.header("Content-Length")).isEqualTo("10");
        assertThat(h.header("Content-Type")).isEqualTo("application/octet-stream");
        assertThat(h.header("ETag")).isEqualTo(r.header("ETag"));
        assertThat(h.body()).isEmpty();
    }

    @Test
    void rangesAndConditionals() throws Exception {
        Files.writeString(root.resolve("f.bin"), "0123456789");
        String etag = f.exchange(RawRequest.get("/v1/files/f.bin")).header("ETag");
        String lm = f.exchange(RawRequest.get("/v1/files/f.bin")).header("Last-Modified");
        RawResponse r = f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("Range", "bytes=2-4"));
        assertThat(r.status()).isEqualTo(206);
        assertThat(r.header("Content-Range")).isEqualTo("bytes 2-4/10");
        assertThat(r.text()).isEqualTo("234");
        assertThat(f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("Range", "bytes=-3"))
                        .text())
                .isEqualTo("789");
        assertThat(f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("Range", "bytes=7-"))
                        .text())
                .isEqualTo("789");
        r = f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("Range", "bytes=10-20"));
        assertError(r, 416, "INVALID_ARGUMENT");
        assertThat(r.header("Content-Range")).isEqualTo("bytes */10");
        assertThat(f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("Range", "bytes=10-"))
                        .status())
                .isEqualTo(416);
        assertThat(f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("Range", "bytes=5-2"))
                        .status())
                .isEqualTo(200);
        r = f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("If-None-Match", etag));
        assertThat(r.status()).isEqualTo(304);
        assertThat(r.header("ETag")).isEqualTo(etag);
        assertThat(f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("If-None-Match", "\"other\""))
                        .status())
                .isEqualTo(200);
        assertThat(f.exchange(RawRequest.of("GET", "/v1/files/f.bin").header("If-Modified-Since", lm))
                        .status())
                .isEqualTo(304);
        assertThat(f.exchange(RawRequest.of("HEAD", "/v1/files/f.bin").header("If-Modified-Since", lm))
                        .status())
                .isEqualTo(304);
        assertThat(f.exchange(RawRequest.of("GET", "/v1/files/f.bin")
                                .header("If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"))
                        .status())
                .isEqualTo(200);
        assertThat(f.exchange(RawRequest.of("GET", "/v1/files/f.bin")
                                .header("Range", "bytes=2-4")
                                .header("If-Range", "\"stale\""))
                        .status())
                .isEqualTo(200);
    }

    @Test
    void directoryListingShape() throws Exception {
        Files.createDirectories(root.resolve("d/adir"));
        Files.writeString(root.resolve("d/b.txt"), "hi");
        Files.setPosixFilePermissions(root.resolve("d/b.txt"), PosixFilePermissions.fromString("rw-------"));
        Files.writeString(root.resolve("d/B.txt"), "x");
        Files.writeString(root.resolve("d/.hidden"), "x");
        Files.writeString(root.resolve("d/.sandboxd-upload-dead-0.tmp"), "stale");
        Files.setLastModifiedTime(root.resolve("d/b.txt"), FileTime.from(Instant.parse("2026-08-06T10:00:00.700Z")));
        RawResponse r = f.exchange(RawRequest.get("/v1/files/d"));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo("application/json");
        assertThat(r.text()).startsWith("{\"path\":\"/d\",\"entries\":[");
        assertThat(r.text()).doesNotContain("sandboxd-upload");
        // byte-wise: '.' < 'B' < 'a' < 'b'
        assertThat(r.text().indexOf("\".hidden\"")).isLessThan(r.text().indexOf("\"B.txt\""));
        assertThat(r.text().indexOf("\"B.txt\"")).isLessThan(r.text().indexOf("\"adir\""));
        assertThat(r.text().indexOf("\"adir\"")).isLessThan(r.text().indexOf("\"b.txt\""));
        assertThat(r.text())
                .contains(
                        "{\"name\":\"b.txt\",\"size\":2,\"type\":\"file\",\"modified_at\":\"2026-08-06T10:00:00Z\",\"mode\":\"0600\"}");
        assertThat(r.text()).contains("\"name\":\"adir\",").contains("\"type\":\"directory\"");
        assertThat(f.exchange(RawRequest.get("/v1/files/d%2F")).text()).startsWith("{\"path\":\"/d/\"");
        RawResponse h = f.exchange(RawRequest.head("/v1/files/d"));
        assertThat(h.status()).isEqualTo(200);
        assertThat(h.header("Content-Length")).isEqualTo(String.valueOf(r.body().length));
        assertThat(h.body()).isEmpty();
    }

    @Test
    void emptyDirectoryListsEmptyArray() throws Exception {
        Files.createDirectories(root.resolve("e"));
        assertThat(f.exchange(RawRequest.get("/v1/files/e")).text()).isEqualTo("{\"path\":\"/e\",\"entries\":[]}\n");
    }

    @Test
    void symlinksAreListedAsTargetsAndEscapingOrDanglingOnesOmitted() throws Exception {
        Files.createDirectories(root.resolve("d/real"));
        Files.writeString(root.resolve("d/normal.txt"), "n");
        Files.createSymbolicLink(root.resolve("d/tofile"), Path.of("normal.txt"));
        Files.createSymbolicLink(root.resolve("d/todir"), Path.of("real"));
        Files.createSymbolicLink(root.resolve("d/escape"), f.base);
        Files.createSymbolicLink(root.resolve("d/dangle"), Path.of("missing"));
        String t = f.exchange(RawRequest.get("/v1/files/d")).text();
        assertThat(t).contains("\"name\":\"tofile\",\"size\":1,\"type\":\"file\"");
        assertThat(t).contains("\"name\":\"todir\",").containsPattern("\"todir\",\"size\":\\d+,\"type\":\"directory\"");
        assertThat(t).doesNotContain("escape").doesNotContain("dangle");
    }

    @Test
    void missingIs404ForGetAndHead() throws Exception {
        assertError(f.exchange(RawRequest.get("/v1/files/missing.txt")), 404, "NOT_FOUND");
        RawResponse h = f.exchange(RawRequest.head("/v1/files/missing.txt"));
        assertThat(h.status()).isEqualTo(404);
        assertThat(h.header("Content-Type")).isEqualTo("application/json");
        assertThat(h.body()).isEmpty();
    }

    @Test
    void fifoIs400NeverAHang() throws Exception {
        Process p = new ProcessBuilder("mkfifo", root.resolve("fifo").toString()).start();
        assertThat(p.waitFor()).isZero();
        assertError(f.exchange(RawRequest.get("/v1/files/fifo")), 400, "INVALID_ARGUMENT");
        assertThat(f.exchange(RawRequest.head("/v1/files/fifo")).status()).isEqualTo(400);
    }

    // ---- 2.4 PUT

    @Test
    void putRawBodyAnyContentType() throws Exception {
        RawResponse r = f.exchange(RawRequest.of("PUT", "/v1/files/t.txt")
                .header("Content-Type", "text/plain")
                .body(b("plain")));
        assertThat(r.status()).isEqualTo(204);
        assertThat(r.body()).isEmpty();
        assertThat(r.header("Content-Type")).isNull();
        assertThat(Files.readString(root.resolve("t.txt"))).isEqualTo("plain");
        assertThat(f.exchange(RawRequest.of("PUT", "/v1/files/none.txt").body(b("")))
                        .status())
                .isEqualTo(204);
        assertThat(Files.size(root.resolve("none.txt"))).isZero();
    }

    @Test
    void putMultipartFilePart() throws Exception {
        String body = "--XyZ\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nignored\r\n"
                + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"whatever.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\nthe content\r\n--XyZ--\r\n";
        RawResponse r = f.exchange(RawRequest.of("PUT", "/v1/files/m.txt")
                .header("Content-Type", "multipart/form-data; boundary=XyZ")
                .body(b(body)));
        assertThat(r.status()).as(r.describe()).isEqualTo(204);
        assertThat(Files.readString(root.resolve("m.txt"))).isEqualTo("the content");

        String noFile = "--XyZ\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nx\r\n--XyZ--\r\n";
        assertError(
                f.exchange(RawRequest.of("PUT", "/v1/files/m2.txt")
                        .header("Content-Type", "multipart/form-data; boundary=XyZ")
                        .body(b(noFile))),
                400,
                "INVALID_ARGUMENT");
        assertError(
                f.exchange(RawRequest.of("PUT", "/v1/files/m3.txt")
                        .header("Content-Type", "multipart/form-data")
                        .body(b(noFile))),
                400,
                "INVALID_ARGUMENT");
        assertError(
                f.exchange(RawRequest.of("PUT", "/v1/files/m4.txt")
                        .header("Content-Type", "multipart/form-data; boundary=XyZ")
                        .body(b("--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\ntrunc"))),
                400,
                "INVALID_ARGUMENT");
        assertThat(root.resolve("m2.txt")).doesNotExist();
        assertThat(root.resolve("m4.txt")).doesNotExist();
        assertThat(onlyEntries(root)).containsExactly("m.txt");
    }

    private static java.util.List<String> onlyEntries(Path dir) throws Exception {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void putModeIsAppliedExactly() throws Exception {
        assertThat(f.exchange(RawRequest.put("/v1/files/x.sh?mode=0755", b("#!"))
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("x.sh"))))
                .isEqualTo("rwxr-xr-x");
        assertThat(f.exchange(RawRequest.put("/v1/files/y?mode=0000", b(""))
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(Files.getPosixFilePermissions(root.resolve("y"))).isEmpty();
        assertThat(f.exchange(RawRequest.put("/v1/files/z", b("")).header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("z"))))
                .isEqualTo("rw-r--r--");
        for (String bad : new String[] {"0999", "777", "abcd", "01777", "0o644", "%200644"}) {
            assertError(
                    f.exchange(RawRequest.put("/v1/files/bad?mode=" + bad, b("x"))
                            .header("Content-Type", "application/octet-stream")),
                    400,
                    "INVALID_ARGUMENT");
        }
        assertThat(root.resolve("bad")).doesNotExist();
    }

    @Test
    void putCreatesParentsAndRejectsDirectoryTargets() throws Exception {
        assertThat(f.exchange(RawRequest.put("/v1/files/a/b/c/deep.txt", b("d"))
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(Files.readString(root.resolve("a/b/c/deep.txt"))).isEqualTo("d");
        assertError(
                f.exchange(RawRequest.put("/v1/files/a/b", b("x")).header("Content-Type", "application/octet-stream")),
                400,
                "INVALID_ARGUMENT");
        assertError(
                f.exchange(RawRequest.put("/v1/files/", b("x")).header("Content-Type", "application/octet-stream")),
                400,
                "INVALID_ARGUMENT");
        assertThat(Files.isDirectory(root.resolve("a/b"))).isTrue();
    }

    @Test
    void putOverwritesAtomicallyLeavingNoTemp() throws Exception {
        f.exchange(RawRequest.put("/v1/files/o.txt", b("old")).header("Content-Type", "application/octet-stream"));
        f.exchange(RawRequest.put("/v1/files/o.txt", b("new")).header("Content-Type", "application/octet-stream"));
        assertThat(Files.readString(root.resolve("o.txt"))).isEqualTo("new");
        assertThat(onlyEntries(root)).containsExactly("o.txt");
    }

    @Test
    void putThroughSymlinkWritesTheTarget() throws Exception {
        Files.writeString(root.resolve("target.txt"), "t");
        Files.createSymbolicLink(root.resolve("ln"), Path.of("target.txt"));
        assertThat(f.exchange(RawRequest.put("/v1/files/ln", b("via link"))
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(Files.isSymbolicLink(root.resolve("ln"))).isTrue();
        assertThat(Files.readString(root.resolve("target.txt"))).isEqualTo("via link");
    }

    @Test
    void putPermissionProblemIs403() throws Exception {
        if ("root".equals(System.getProperty("user.name"))) {
            return; // root ignores directory permissions; covered where tests run unprivileged
        }
        Path ro = Files.createDirectories(root.resolve("ro"));
        Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
        assertError(
                f.exchange(RawRequest.put("/v1/files/ro/x", b("x")).header("Content-Type", "application/octet-stream")),
                403,
                "PERMISSION_DENIED");
    }

    @Test
    void putDigestIsVerifiedBeforeRename() throws Exception {
        byte[] body = b("digest me");
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(body);
        String hex = HexFormat.of().formatHex(sha);
        assertThat(f.exchange(RawRequest.of("PUT", "/v1/files/d1")
                                .header("X-Content-SHA256", hex)
                                .body(body))
                        .status())
                .isEqualTo(204);
        assertThat(f.exchange(RawRequest.of("PUT", "/v1/files/d2")
                                .header(
                                        "Content-Digest",
                                        "sha-256=:" + Base64.getEncoder().encodeToString(sha) + ":")
                                .body(body))
                        .status())
                .isEqualTo(204);
        assertError(
                f.exchange(RawRequest.of("PUT", "/v1/files/d3")
                        .header("X-Content-SHA256", hex)
                        .body(b("other"))),
                400,
                "INVALID_ARGUMENT");
        f.exchange(RawRequest.put("/v1/files/d1b", b("keep")).header("Content-Type", "application/octet-stream"));
        assertError(
                f.exchange(RawRequest.of("PUT", "/v1/files/d1b")
                        .header("X-Content-SHA256", hex)
                        .body(b("other"))),
                400,
                "INVALID_ARGUMENT");
        assertThat(Files.readString(root.resolve("d1b"))).isEqualTo("keep");
        assertThat(root.resolve("d3")).doesNotExist();
        assertThat(onlyEntries(root)).containsExactly("d1", "d1b", "d2");
    }

    @Test
    void putConditionals() throws Exception {
        f.exchange(RawRequest.put("/v1/files/c.txt", b("v1")).header("Content-Type", "application/octet-stream"));
        String etag = f.exchange(RawRequest.head("/v1/files/c.txt")).header("ETag");
        assertError(
                f.exchange(RawRequest.of("PUT", "/v1/files/c.txt")
                        .header("If-None-Match", "*")
                        .body(b("x"))),
                412,
                "PRECONDITION_FAILED");
        assertThat(f.exchange(RawRequest.of("PUT", "/v1/files/new.txt")
                                .header("If-None-Match", "*")
                                .body(b("x")))
                        .status())
                .isEqualTo(204);
        assertThat(f.exchange(RawRequest.of("PUT", "/v1/files/c.txt")
                                .header("If-Match", etag)
                                .body(b("v2")))
                        .status())
                .isEqualTo(204);
        assertError(
                f.exchange(RawRequest.of("PUT", "/v1/files/c.txt")
                        .header("If-Match", etag)
                        .body(b("v3"))),
                412,
                "PRECONDITION_FAILED");
        assertError(
                f.exchange(RawRequest.of("PUT", "/v1/files/missing.txt")
                        .header("If-Match", etag)
                        .body(b("v3"))),
                412,
                "PRECONDITION_FAILED");
        assertThat(Files.readString(root.resolve("c.txt"))).isEqualTo("v2");
    }

    @Test
    void anErrorSentBeforeTheBodyIsReadSaysTheConnectionCloses() throws Exception {
        Files.writeString(root.resolve("c.txt"), "v1");
        try (RawHttp c = RawHttp.connect("127.0.0.1", f.server.port(), Duration.ofSeconds(10))) {
            // only the head: the body is still on its way when the precondition fails
            c.send("PUT /v1/files/c.txt HTTP/1.1\r\nHost: x\r\nIf-Match: \"nope\"\r\nContent-Length: 2\r\n\r\n");
            RawResponse r = c.read();
            assertThat(r.status()).isEqualTo(412);
            assertThat(r.header("Connection")).isEqualToIgnoringCase("close");
            assertThat(c.closedByPeer()).isTrue();
        }
        // an error after the whole body was read keeps the connection for the next request
        try (RawHttp c = RawHttp.connect("127.0.0.1", f.server.port(), Duration.ofSeconds(10))) {
            c.send(RawRequest.of("PUT", "/v1/files/c.txt")
                    .header("X-Content-SHA256", "00".repeat(32))
                    .body(b("v2")));
            RawResponse r = c.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("Connection")).isNull();
            c.send(RawRequest.get("/v1/files/c.txt"));
            assertThat(c.read().text()).isEqualTo("v1");
        }
    }

    // ---- 2.5 DELETE

    @Test
    void deleteFileThenMissing() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        RawResponse r = f.exchange(RawRequest.delete("/v1/files/f"));
        assertThat(r.status()).isEqualTo(204);
        assertThat(r.body()).isEmpty();
        assertError(f.exchange(RawRequest.delete("/v1/files/f")), 404, "NOT_FOUND");
    }

    @Test
    void deleteRecursiveParameter() throws Exception {
        Files.createDirectories(root.resolve("d/sub"));
        Files.writeString(root.resolve("d/sub/f"), "x");
        Files.createDirectories(root.resolve("empty"));
        assertError(f.exchange(RawRequest.delete("/v1/files/d?recursive=banana")), 400, "INVALID_ARGUMENT");
        assertError(f.exchange(RawRequest.delete("/v1/files/d")), 409, "CONFLICT");
        assertError(f.exchange(RawRequest.delete("/v1/files/d?recursive=false")), 409, "CONFLICT");
        assertThat(f.exchange(RawRequest.delete("/v1/files/empty")).status()).isEqualTo(204);
        assertThat(f.exchange(RawRequest.delete("/v1/files/d?recursive=true")).status())
                .isEqualTo(204);
        assertThat(root.resolve("d")).doesNotExist();
    }

    @Test
    void deleteRootClearsContentsOnlyWithRecursive() throws Exception {
        Files.createDirectories(root.resolve("d/sub"));
        Files.writeString(root.resolve("d/sub/f"), "x");
        Files.writeString(root.resolve("top"), "x");
        assertError(f.exchange(RawRequest.delete("/v1/files/")), 409, "CONFLICT");
        assertThat(f.exchange(RawRequest.delete("/v1/files/?recursive=true")).status())
                .isEqualTo(204);
        assertThat(root).isDirectory().isEmptyDirectory();
        assertError(f.exchange(RawRequest.delete("/v1/files/%2E")), 409, "CONFLICT");
    }

    @Test
    void deleteRemovesTheLinkNotTheTarget() throws Exception {
        Path outside = Files.createDirectories(f.base.resolve("outside"));
        Files.writeString(outside.resolve("keep"), "k");
        Files.writeString(root.resolve("t.txt"), "t");
        Files.createSymbolicLink(root.resolve("ln"), Path.of("t.txt"));
        Files.createSymbolicLink(root.resolve("out"), outside);
        assertThat(f.exchange(RawRequest.delete("/v1/files/ln")).status()).isEqualTo(204);
        assertThat(root.resolve("t.txt")).exists();
        assertThat(f.exchange(RawRequest.delete("/v1/files/out?recursive=true")).status())
                .isEqualTo(204);
        assertThat(outside.resolve("keep")).exists();
        assertThat(Files.exists(root.resolve("out"), java.nio.file.LinkOption.NOFOLLOW_LINKS))
                .isFalse();
    }

    // ---- 2.6 health, metadata, metrics

    @Test
    void healthAndShutdown() throws Exception {
        RawResponse r = f.exchange(RawRequest.get("/v1/health"));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo("application/json");
        assertThat(r.text()).matches("\\{\"status\":\"ok\",\"uptime_seconds\":\\d+}\\s*");
        assertThat(f.exchange(RawRequest.head("/v1/health")).status()).isEqualTo(200);
        f.listeners.state().beginShutdown();
        r = f.exchange(RawRequest.get("/v1/health"));
        assertError(r, 503, "UNAVAILABLE");
        assertThat(r.text()).contains("sandboxd is shutting down");
    }

    @Test
    void metadataFiltersByPrefixAndCredentialWords() throws Exception {
        RawResponse r = f.exchange(RawRequest.get("/v1/metadata"));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo("application/json");
        assertThat(r.text())
                .isEqualTo("{\"env\":{\"SANDBOX_AUTHOR\":\"a\",\"SANDBOX_ID\":\"sb-1\",\"SANDBOX_MONKEY\":\"m\"}}\n");
    }

    @Test
    void metricsCountRequestsByRouteAndStatus() throws Exception {
        f.exchange(RawRequest.get("/v1/files/missing"));
        f.exchange(RawRequest.put("/v1/files/m", b("12345")).header("Content-Type", "application/octet-stream"));
        // A request is recorded once its response completed, which the client may see first.
        String expected = "sandboxd_http_server_request_body_bytes_sum{method=\"PUT\",route=\"/v1/files/{path}\"} 5.0";
        RawResponse r = f.exchange(RawRequest.get("/metrics"));
        for (int i = 0; i < 100 && !r.text().contains(expected); i++) {
            Thread.sleep(50);
            r = f.exchange(RawRequest.get("/metrics"));
        }
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).startsWith("text/plain");
        assertThat(r.text())
                .contains(
                        "sandboxd_http_server_requests_seconds_count{method=\"GET\",route=\"/v1/files/{path}\",status=\"404\"} 1")
                .contains("sandboxd_http_server_errors_total{route=\"/v1/files/{path}\",status=\"404\"} 1")
                .contains("sandboxd_http_server_request_body_bytes_sum{method=\"PUT\",route=\"/v1/files/{path}\"} 5.0");
    }
}
