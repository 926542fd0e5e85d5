package io.sandboxd.daemon.rest;

import static io.sandboxd.daemon.rest.ExtensionRoutesTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code GET /sandboxd/v1alpha1/fs/stat} (runtime-contract §4.3) against real files. */
class StatRouteTest {
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

    JsonNode stat(String query) throws Exception {
        RawResponse r = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?" + query));
        assertThat(r.status()).as(r.describe()).isEqualTo(200);
        return json(r);
    }

    int status(String query) throws Exception {
        return f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?" + query)).status();
    }

    @Test
    void regularFileCarriesTheEtagGetSends() throws Exception {
        Path file = Files.writeString(root.resolve("a.txt"), "hello");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        Instant mtime = Instant.parse("2024-05-06T07:08:09.123456789Z");
        Files.setLastModifiedTime(file, FileTime.from(mtime));
        JsonNode s = stat("path=a.txt");
        assertThat(s.get("path").asString()).isEqualTo("/a.txt");
        assertThat(s.get("type").asString()).isEqualTo("file");
        assertThat(s.get("size").asLong()).isEqualTo(5);
        assertThat(s.get("mode").asString()).isEqualTo("0640");
        assertThat(s.get("modified_at").asString()).isEqualTo("2024-05-06T07:08:09.123456789Z");
        String getEtag = f.exchange(RawRequest.head("/v1/files/a.txt")).header("ETag");
        assertThat(s.get("etag").asString()).isEqualTo(getEtag);
        assertThat(s.has("link_target")).isFalse();

        Files.writeString(file, "hello, changed");
        assertThat(stat("path=a.txt").get("etag").asString()).isNotEqualTo(getEtag);
    }

    @Test
    void directoriesAndTheRoot() throws Exception {
        Files.createDirectories(root.resolve("d/e"));
        JsonNode d = stat("path=d");
        assertThat(d.get("type").asString()).isEqualTo("directory");
        assertThat(d.has("etag")).isFalse();
        assertThat(stat("path=").get("path").asString()).isEqualTo("/");
        assertThat(stat("path=/").get("type").asString()).isEqualTo("directory");
        assertThat(stat("path=d/./e/..").get("path").asString()).isEqualTo("/d");
    }

    @Test
    void symlinksAreDescribedThemselvesUnlessFollowed() throws Exception {
        Files.writeString(root.resolve("t.txt"), "target");
        Files.createDirectories(root.resolve("sub"));
        Files.createSymbolicLink(root.resolve("sub/in"), Path.of("../t.txt"));
        Files.createSymbolicLink(root.resolve("out"), Path.of("/etc/passwd"));
        Files.createSymbolicLink(root.resolve("abs-in"), root.resolve("t.txt"));
        Files.createSymbolicLink(root.resolve("dangling"), Path.of("nowhere"));
        Files.createSymbolicLink(root.resolve("loop"), Path.of("loop"));

        JsonNode in = stat("path=sub/in");
        assertThat(in.get("type").asString()).isEqualTo("symlink");
        assertThat(in.get("link_target").asString()).isEqualTo("../t.txt");
        assertThat(in.get("link_resolves").asString()).isEqualTo("inside");
        assertThat(in.get("size").asLong()).isEqualTo("../t.txt".length());
        assertThat(in.has("etag")).isFalse();

        JsonNode out = stat("path=out");
        assertThat(out.get("link_target").asString()).isEqualTo("/etc/passwd");
        assertThat(out.get("link_resolves").asString()).isEqualTo("outside");
        assertThat(stat("path=abs-in").get("link_resolves").asString()).isEqualTo("inside");
        assertThat(stat("path=dangling").get("link_resolves").asString()).isEqualTo("dangling");
        assertThat(stat("path=loop").get("link_resolves").asString()).isEqualTo("dangling");

        JsonNode followed = stat("path=sub/in&follow=true");
        assertThat(followed.get("type").asString()).isEqualTo("file");
        assertThat(followed.get("path").asString()).isEqualTo("/t.txt");
        assertThat(followed.get("etag").asString())
                .isEqualTo(f.exchange(RawRequest.head("/v1/files/sub/in")).header("ETag"));
        assertThat(status("path=out&follow=true")).isEqualTo(403);
        assertThat(status("path=dangling&follow=true")).isEqualTo(404);
    }

    @Test
    void specialFilesAndNamesThatAreNotUtf8() throws Exception {
        new ProcessBuilder("mkfifo", root.resolve("fifo").toString()).start().waitFor();
        assertThat(stat("path=fifo").get("type").asString()).isEqualTo("fifo");
        Path weird = Path.of(
                root + "/" + new String(new byte[] {'x', (byte) 0xff}, java.nio.charset.StandardCharsets.ISO_8859_1));
        // the JVM's file names are UTF-8 here: create the name with a shell, as bytes
        new ProcessBuilder("sh", "-c", "printf x > \"$(printf 'x\\377')\"")
                .directory(root.toFile())
                .start()
                .waitFor();
        JsonNode s = stat("path=x%FF");
        assertThat(s.get("path").asString()).isEqualTo("/x\uFFFD");
        assertThat(s.get("path_encoded").asString()).isEqualTo("/x%FF");
        assertThat(s.get("size").asLong()).isEqualTo(1);
    }

    @Test
    void missingEntriesAndParents() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        assertThat(status("path=missing")).isEqualTo(404);
        assertThat(status("path=f/below")).isEqualTo(404);
        assertThat(status("path=.sandboxd-upload-x")).isEqualTo(400);
    }
}
