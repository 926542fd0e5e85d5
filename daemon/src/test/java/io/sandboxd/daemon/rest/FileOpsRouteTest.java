package io.sandboxd.daemon.rest;

import static io.sandboxd.daemon.rest.ExtensionRoutesTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** mkdir, move and chmod under {@code /sandboxd/v1alpha1/fs/} (runtime-contract §4.3), real files. */
class FileOpsRouteTest {
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

    RawResponse post(String route, String query) throws Exception {
        return f.exchange(RawRequest.of("POST", "/sandboxd/v1alpha1/fs/" + route + "?" + query)
                .body(new byte[0]));
    }

    void expect(RawResponse r, int status, String code) {
        assertThat(r.status()).as(r.describe()).isEqualTo(status);
        assertThat(json(r).get("code").asString()).isEqualTo(code);
    }

    static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    // ---------------------------------------------------------------- mkdir

    @Test
    void mkdirCreatesWithTheExactModeAndRefusesWhatExists() throws Exception {
        RawResponse r = post("mkdir", "path=new&mode=0750");
        assertThat(r.status()).as(r.describe()).isEqualTo(201);
        assertThat(r.body()).isEmpty();
        assertThat(Files.isDirectory(root.resolve("new"))).isTrue();
        assertThat(mode(root.resolve("new"))).isEqualTo("rwxr-x---");
        assertThat(mode(root.resolve(
                        Files.createDirectories(root.resolve("dflt")).getFileName())))
                .isNotNull();
        assertThat(post("mkdir", "path=plain").status()).isEqualTo(201);
        assertThat(mode(root.resolve("plain"))).isEqualTo("rwxr-xr-x");

        expect(post("mkdir", "path=new"), 409, "CONFLICT");
        Files.writeString(root.resolve("file"), "x");
        expect(post("mkdir", "path=file"), 409, "CONFLICT");
        expect(post("mkdir", "path=file&parents=true"), 409, "CONFLICT");
        expect(post("mkdir", "path=missing/child"), 404, "NOT_FOUND");
        expect(post("mkdir", "path="), 409, "CONFLICT");
        assertThat(post("mkdir", "path=&parents=true").status()).isEqualTo(204);
        expect(post("mkdir", "path=x&mode=0888"), 400, "INVALID_ARGUMENT");
        expect(post("mkdir", "path=x&mode=4755"), 400, "INVALID_ARGUMENT");
        assertThat(Files.exists(root.resolve("x"))).isFalse();
    }

    @Test
    void mkdirWithParentsIsIdempotentAndNeverCreatesALinksTarget() throws Exception {
        assertThat(post("mkdir", "path=a/b/c&parents=true").status()).isEqualTo(201);
        assertThat(Files.isDirectory(root.resolve("a/b/c"))).isTrue();
        assertThat(post("mkdir", "path=a/b/c&parents=true").status()).isEqualTo(204);
        assertThat(post("mkdir", "path=a/b&parents=true").status()).isEqualTo(204);

        Files.createSymbolicLink(root.resolve("to-dir"), Path.of("a"));
        assertThat(post("mkdir", "path=to-dir&parents=true").status()).isEqualTo(204);
        expect(post("mkdir", "path=to-dir"), 409, "CONFLICT");

        Files.createSymbolicLink(root.resolve("dangling"), Path.of("t/u/v"));
        expect(post("mkdir", "path=dangling&parents=true"), 409, "CONFLICT");
        assertThat(Files.exists(root.resolve("t")))
                .as("the link's target is never made")
                .isFalse();

        Files.createSymbolicLink(root.resolve("out"), tmp);
        expect(post("mkdir", "path=out/x&parents=true"), 403, "PERMISSION_DENIED");
        expect(post("mkdir", "path=../x&parents=true"), 403, "PERMISSION_DENIED");
        assertThat(Files.exists(tmp.resolve("x"))).isFalse();

        // parents through a link inside the root are its real directories
        assertThat(post("mkdir", "path=to-dir/n/m&parents=true").status()).isEqualTo(201);
        assertThat(Files.isDirectory(root.resolve("a/n/m"))).isTrue();
    }

    // ---------------------------------------------------------------- move

    @Test
    void moveRenamesAndRefusesToOverwriteUnlessAsked() throws Exception {
        Files.writeString(root.resolve("a"), "A");
        Files.writeString(root.resolve("b"), "B");
        Files.createDirectories(root.resolve("d"));
        assertThat(post("move", "from=a&to=d/a2").status()).isEqualTo(204);
        assertThat(Files.readString(root.resolve("d/a2"))).isEqualTo("A");
        assertThat(Files.exists(root.resolve("a"))).isFalse();

        expect(post("move", "from=b&to=d/a2"), 409, "CONFLICT");
        assertThat(Files.readString(root.resolve("b"))).isEqualTo("B");
        assertThat(Files.readString(root.resolve("d/a2"))).isEqualTo("A");
        assertThat(post("move", "from=b&to=d/a2&overwrite=true").status()).isEqualTo(204);
        assertThat(Files.readString(root.resolve("d/a2"))).isEqualTo("B");
        assertThat(Files.exists(root.resolve("b"))).isFalse();

        // same entry: nothing to do
        assertThat(post("move", "from=d/a2&to=d/./a2").status()).isEqualTo(204);
        assertThat(Files.readString(root.resolve("d/a2"))).isEqualTo("B");
    }

    @Test
    void moveOfADirectoryIntoItselfIs400() throws Exception {
        Files.createDirectories(root.resolve("d/sub"));
        expect(post("move", "from=d&to=d/sub/x"), 400, "INVALID_ARGUMENT");
        Files.createSymbolicLink(root.resolve("alias"), Path.of("d/sub"));
        RawResponse viaLink = post("move", "from=d&to=alias/x");
        expect(viaLink, 400, "INVALID_ARGUMENT");
        assertThat(Files.isDirectory(root.resolve("d/sub"))).isTrue();
    }

    @Test
    void moveKeepsBothEndsConfinedAndMovesLinksThemselves() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        Files.createSymbolicLink(root.resolve("out"), tmp);
        expect(post("move", "from=f&to=out/stolen"), 403, "PERMISSION_DENIED");
        expect(post("move", "from=out/root&to=here"), 403, "PERMISSION_DENIED");
        expect(post("move", "from=../x&to=f2"), 403, "PERMISSION_DENIED");
        expect(post("move", "from=f&to=../f"), 403, "PERMISSION_DENIED");
        assertThat(Files.exists(tmp.resolve("stolen"))).isFalse();
        assertThat(Files.isDirectory(root)).isTrue();

        // a link as the source is the link itself, not what it points to
        assertThat(post("move", "from=out&to=renamed-link").status()).isEqualTo(204);
        assertThat(Files.isSymbolicLink(root.resolve("renamed-link"))).isTrue();
        assertThat(Files.readSymbolicLink(root.resolve("renamed-link"))).isEqualTo(tmp);

        expect(post("move", "from=missing&to=x"), 404, "NOT_FOUND");
        expect(post("move", "from=f&to=no/such/dir"), 404, "NOT_FOUND");
        expect(post("move", "from=&to=x"), 400, "INVALID_ARGUMENT");
        expect(post("move", "from=f&to="), 400, "INVALID_ARGUMENT");
        expect(post("move", "from=f"), 400, "INVALID_ARGUMENT");
    }

    @Test
    void moveRefusesIncompatibleReplacements() throws Exception {
        Files.createDirectories(root.resolve("full/x"));
        Files.createDirectories(root.resolve("empty"));
        Files.createDirectories(root.resolve("src"));
        Files.writeString(root.resolve("file"), "x");
        expect(post("move", "from=src&to=full&overwrite=true"), 409, "CONFLICT");
        expect(post("move", "from=file&to=empty&overwrite=true"), 409, "CONFLICT");
        expect(post("move", "from=src&to=file&overwrite=true"), 409, "CONFLICT");
        assertThat(post("move", "from=src&to=empty&overwrite=true").status()).isEqualTo(204);
        assertThat(Files.exists(root.resolve("src"))).isFalse();
    }

    @Test
    void moveHandlesNamesThatAreNotUtf8() throws Exception {
        new ProcessBuilder("sh", "-c", "printf z > \"$(printf 'n\\377')\"")
                .directory(root.toFile())
                .start()
                .waitFor();
        assertThat(post("move", "from=n%FF&to=m%FE%FD").status()).isEqualTo(204);
        RawResponse s = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=m%FE%FD"));
        assertThat(json(s).get("path_encoded").asString()).isEqualTo("/m%FE%FD");
    }

    // ---------------------------------------------------------------- chmod

    @Test
    void chmodSetsTheModeFollowingLinksWithinTheRoot() throws Exception {
        Path file = Files.writeString(root.resolve("f"), "x");
        assertThat(post("chmod", "path=f&mode=0600").status()).isEqualTo(204);
        assertThat(mode(file)).isEqualTo("rw-------");
        assertThat(post("chmod", "path=f&mode=755").status()).isEqualTo(204);
        assertThat(mode(file)).isEqualTo("rwxr-xr-x");

        Files.createDirectories(root.resolve("d"));
        assertThat(post("chmod", "path=d&mode=1777").status()).isEqualTo(204);
        RawResponse st = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=d"));
        assertThat(json(st).get("mode").asString()).isEqualTo("1777");

        Files.createSymbolicLink(root.resolve("link"), Path.of("f"));
        assertThat(post("chmod", "path=link&mode=0640").status()).isEqualTo(204);
        assertThat(mode(file)).isEqualTo("rw-r-----");
        assertThat(mode(root.resolve("link")))
                .as("the link itself is untouched")
                .isEqualTo("rwxrwxrwx");

        Path outside = Files.writeString(tmp.resolve("outside.txt"), "o");
        Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rw-r--r--"));
        Files.createSymbolicLink(root.resolve("out"), outside);
        expect(post("chmod", "path=out&mode=0777"), 403, "PERMISSION_DENIED");
        assertThat(mode(outside)).isEqualTo("rw-r--r--");

        expect(post("chmod", "path=f&mode=4755"), 400, "INVALID_ARGUMENT");
        expect(post("chmod", "path=f&mode=2755"), 400, "INVALID_ARGUMENT");
        expect(post("chmod", "path=f&mode=rwx"), 400, "INVALID_ARGUMENT");
        expect(post("chmod", "path=f"), 400, "INVALID_ARGUMENT");
        expect(post("chmod", "path=&mode=0700"), 400, "INVALID_ARGUMENT");
        expect(post("chmod", "path=missing&mode=0700"), 404, "NOT_FOUND");
        assertThat(mode(file)).isEqualTo("rw-r-----");
    }
}
