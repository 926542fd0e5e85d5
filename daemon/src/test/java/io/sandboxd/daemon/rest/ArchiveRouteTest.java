package io.sandboxd.daemon.rest;

import static io.sandboxd.daemon.rest.ExtensionRoutesTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET|PUT /sandboxd/v1alpha1/fs/archive} (runtime-contract §4.3): round trips, interop with tar. */
class ArchiveRouteTest {
    /** A tree with modes, empty dirs, symlinks, long and deep names, names that are not UTF-8. */
    static final String RICH_TREE = String.join(
            "\n",
            "import os",
            "def w(p, data, mode):",
            "    with open(p, 'wb') as f: f.write(data)",
            "    os.chmod(p, mode)",
            "os.makedirs(b'src/nested/deeper'); os.makedirs(b'src/empty'); os.makedirs(b'src/locked')",
            "os.makedirs(b'src/sticky'); os.chmod(b'src/sticky', 0o1777); os.chmod(b'src/locked', 0o700)",
            "w(b'src/a.txt', b'hello', 0o644); w(b'src/exec.sh', b'#!/bin/sh\\n', 0o755)",
            "w(b'src/private', b'secret', 0o600); w(b'src/nested/deeper/file', bytes(range(256)) * 300, 0o640)",
            "os.symlink(b'a.txt', b'src/link-rel'); os.symlink(b'/etc/passwd', b'src/link-abs')",
            "os.symlink(b'nowhere', b'src/dangling')",
            "os.makedirs(b'src/\\xff\\xfe-dir'); w(b'src/\\xff\\xfe-dir/\\xfd-file', b'bytes', 0o644)",
            "os.symlink(b'\\xff\\xfe-dir', b'src/link-bytes')",
            "w(b'src/' + b'L' * 150, b'long', 0o644)",
            "deep = b'src/' + b'/'.join([b'd%02d' % i + b'x' * 20 for i in range(12)])",
            "os.makedirs(deep); w(deep + b'/f', b'deep', 0o644)",
            "w('src/café €'.encode(), b'utf8', 0o644)",
            "os.chmod(b'src', 0o750)");

    @TempDir
    Path tmp;

    RestFixture f;
    Path root;

    @BeforeEach
    void start() throws Exception {
        f = new RestFixture(tmp);
        root = f.root;
    }

    @AfterEach
    void stop() {
        f.close();
    }

    static void sh(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0)
                .as(String.join(" ", cmd) + ": " + out)
                .isTrue();
    }

    static void python(Path dir, String program) throws Exception {
        sh(dir, "/usr/bin/python3", "-c", program);
    }

    byte[] download(String query) throws Exception {
        RawResponse r = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/archive?" + query));
        assertThat(r.status()).as(r.describe()).isEqualTo(200);
        return r.body();
    }

    RawResponse upload(String query, byte[] body) throws Exception {
        return f.exchange(RawRequest.put("/sandboxd/v1alpha1/fs/archive?" + query, body));
    }

    @Test
    void roundTripIsExact() throws Exception {
        python(root, RICH_TREE);
        byte[] tar = download("path=src");
        RawResponse up = upload("path=copy", tar);
        assertThat(up.status()).as(up.describe()).isEqualTo(200);
        assertThat(json(up).get("entries").asLong()).isGreaterThan(15);
        assertThat(TreeManifest.of(root.resolve("copy"))).isEqualTo(TreeManifest.of(root.resolve("src")));

        byte[] gz = download("path=src&gzip=true");
        assertThat(gz[0] & 0xff).isEqualTo(0x1f);
        assertThat(new GZIPInputStream(new ByteArrayInputStream(gz)).readAllBytes())
                .isNotEmpty();
        assertThat(upload("path=copy-gz", gz).status()).isEqualTo(200);
        assertThat(TreeManifest.of(root.resolve("copy-gz"))).isEqualTo(TreeManifest.of(root.resolve("src")));
        try (var s = Files.list(root)) {
            assertThat(s.map(p -> p.getFileName().toString()).sorted().toList())
                    .as("no staging directory stays")
                    .containsExactly("copy", "copy-gz", "src");
        }
    }

    @Test
    void gnuTarReadsWhatWeWriteAndWeReadWhatItWrites() throws Exception {
        python(root, RICH_TREE);
        Path out = Files.createDirectories(tmp.resolve("by-gnu-tar"));
        Files.write(tmp.resolve("dl.tar"), download("path=src"));
        sh(out, "tar", "-x", "-p", "-f", tmp.resolve("dl.tar").toString());
        assertThat(TreeManifest.of(out)).isEqualTo(TreeManifest.of(root.resolve("src")));

        for (String format : new String[] {"gnu", "posix", "ustar"}) {
            Path made = tmp.resolve(format + ".tar");
            if (format.equals("ustar")) {
                // ustar cannot hold the long names: a tree without them
                sh(root, "mkdir", "-p", "small/d");
                sh(root, "sh", "-c", "printf x > small/d/f && ln -s d small/l && chmod 0700 small/d");
                sh(root.resolve("small"), "tar", "--format=ustar", "-c", "-f", made.toString(), ".");
                assertThat(upload("path=from-ustar", Files.readAllBytes(made)).status())
                        .isEqualTo(200);
                assertThat(TreeManifest.of(root.resolve("from-ustar")))
                        .isEqualTo(TreeManifest.of(root.resolve("small")));
                continue;
            }
            sh(root.resolve("src"), "tar", "--format=" + format, "-c", "-f", made.toString(), ".");
            RawResponse r = upload("path=from-" + format, Files.readAllBytes(made));
            assertThat(r.status()).as(format + ": " + r.describe()).isEqualTo(200);
            assertThat(TreeManifest.of(root.resolve("from-" + format)))
                    .as(format)
                    .isEqualTo(TreeManifest.of(root.resolve("src")));
        }
    }

    @Test
    void paxNamesAreUtf8AndBinaryPaxNamesStayBytes() throws Exception {
        // Python's tarfile in PAX format: UTF-8 path records, and hdrcharset=BINARY for names that are not UTF-8
        python(
                root,
                String.join(
                        "\n",
                        "import tarfile, io, os",
                        "os.makedirs(b'want/\\xc3\\xa9t\\xc3\\xa9'); open(b'want/\\xc3\\xa9t\\xc3\\xa9/x', 'wb').write(b'1')",
                        "open(b'want/raw\\xff', 'wb').write(b'2')",
                        "os.chmod(b'want/raw\\xff', 0o644); os.chmod(b'want/\\xc3\\xa9t\\xc3\\xa9/x', 0o644)",
                        "t = tarfile.open('../pax.tar', 'w', format=tarfile.PAX_FORMAT, encoding='utf-8', errors='surrogateescape')",
                        "t.add('want', arcname='.'); t.close()"));
        RawResponse r = upload("path=got", Files.readAllBytes(tmp.resolve("pax.tar")));
        assertThat(r.status()).as(r.describe()).isEqualTo(200);
        assertThat(TreeManifest.of(root.resolve("got"))).isEqualTo(TreeManifest.of(root.resolve("want")));
    }

    @Test
    void aRefusalSentBeforeTheBodyArrivedLeavesTheConnectionUsable() throws Exception {
        Files.createDirectories(root.resolve("taken"));
        byte[] tar = new RawTar().file("new.txt", "new").bytes();
        try (RawHttp c = RawHttp.connect("127.0.0.1", f.server.port(), Duration.ofSeconds(30))) {
            byte[] whole = RawRequest.put("/sandboxd/v1alpha1/fs/archive?path=taken", tar)
                    .toBytes(c.hostPort());
            c.send(Arrays.copyOf(whole, whole.length - tar.length));
            // the handler refuses at once (the target exists); the body comes later
            assertThat(c.readAvailable(Duration.ofMillis(300)))
                    .as("answered before the body was read")
                    .isEmpty();
            c.send(tar);
            RawResponse r = c.read();
            assertThat(r.status()).as(r.describe()).isEqualTo(409);
            assertThat(r.header("connection")).as(r.describe()).isNull();
            assertThat(c.send(RawRequest.get("/v1/health")).read().status())
                    .as("the next request on the same connection")
                    .isEqualTo(200);
        }
    }

    @Test
    void replaceIsExplicitAndSwapsTheWholeTree() throws Exception {
        Files.createDirectories(root.resolve("target/old"));
        Files.writeString(root.resolve("target/old/keep"), "old");
        byte[] tar = new RawTar().file("new.txt", "new").bytes();
        RawResponse r = upload("path=target", tar);
        assertThat(r.status()).isEqualTo(409);
        assertThat(json(r).get("message").asString()).contains("replace=true");
        assertThat(Files.readString(root.resolve("target/old/keep"))).isEqualTo("old");

        assertThat(upload("path=target&replace=true", tar).status()).isEqualTo(200);
        assertThat(Files.readString(root.resolve("target/new.txt"))).isEqualTo("new");
        assertThat(Files.exists(root.resolve("target/old"))).isFalse();
        // a file can be replaced by a directory too
        Files.writeString(root.resolve("plain"), "x");
        assertThat(upload("path=plain&replace=true", tar).status()).isEqualTo(200);
        assertThat(Files.isDirectory(root.resolve("plain"))).isTrue();
        try (var s = Files.list(root)) {
            assertThat(s.map(p -> p.getFileName().toString()).sorted().toList()).containsExactly("plain", "target");
        }
    }

    @Test
    void anUnsyncedUploadIsTheSameTreeAllOrNothing() throws Exception {
        python(root, RICH_TREE);
        byte[] tar = download("path=src");
        RawResponse up = upload("path=copy&sync=false", tar);
        assertThat(up.status()).as(up.describe()).isEqualTo(200);
        assertThat(TreeManifest.of(root.resolve("copy"))).isEqualTo(TreeManifest.of(root.resolve("src")));
        assertThat(upload(
                                "path=copy&sync=false&replace=true",
                                new RawTar().file("only", "1").bytes())
                        .status())
                .isEqualTo(200);
        assertThat(Files.readString(root.resolve("copy/only"))).isEqualTo("1");
        // refused entries still leave nothing behind
        RawResponse slip = upload(
                "path=slip&sync=false", new RawTar().file("../escape", "x").bytes());
        assertThat(slip.status()).isEqualTo(400);
        RawResponse bad = upload("path=other&sync=maybe", tar);
        assertThat(bad.status()).isEqualTo(400);
        assertThat(json(bad).get("message").asString()).contains("\"sync\"").contains("true or false");
        try (var s = Files.list(root)) {
            assertThat(s.map(p -> p.getFileName().toString()).sorted().toList())
                    .as("no staging directory stays")
                    .containsExactly("copy", "src");
        }
    }

    @Test
    void downloadErrorsComeBeforeAnyByte() throws Exception {
        Files.writeString(root.resolve("file"), "x");
        Files.createSymbolicLink(root.resolve("out"), tmp);
        RawResponse notDir = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/archive?path=file"));
        assertThat(notDir.status()).isEqualTo(400);
        assertThat(f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/archive?path=missing"))
                        .status())
                .isEqualTo(404);
        assertThat(f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/archive?path=out"))
                        .status())
                .isEqualTo(403);
        assertThat(upload("path=", new RawTar().bytes()).status()).isEqualTo(400);
        assertThat(upload("path=no/parent", new RawTar().bytes()).status()).isEqualTo(404);
        assertThat(upload("path=out/x", new RawTar().bytes()).status()).isEqualTo(403);
        assertThat(Files.exists(tmp.resolve("x"))).isFalse();
    }

    @Test
    void gzipUploadsAreRecognisedByTheirFirstBytes() throws Exception {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(gz)) {
            z.write(new RawTar().dir("d", 0755).file("d/f", "zipped").bytes());
        }
        assertThat(upload("path=z", gz.toByteArray()).status()).isEqualTo(200);
        assertThat(Files.readString(root.resolve("z/d/f"))).isEqualTo("zipped");
    }
}
