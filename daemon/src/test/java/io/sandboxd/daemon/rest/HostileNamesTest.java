package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: every file the sandbox can create, the API can read, list and remove. The names and
 * trees are made by a real process (python3), as sandboxed code would make them, with bytes that
 * are not UTF-8; the daemon is the real REST server over a real root.
 */
class HostileNamesTest {
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

    /** Runs python3 in the root: the names are created by a process, as bytes. */
    private void python(String program) throws Exception {
        Process p = new ProcessBuilder("python3", "-c", program)
                .directory(root.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
    }

    private long entriesIn(String dir) throws Exception {
        try (var s = Files.list(root.resolve(dir))) {
            return s.count();
        }
    }

    @Test
    void literalDotDotAboveTheRootIs403NotJettys400() throws Exception {
        for (String target : List.of(
                "/v1/files/a/b/../../../../../etc/passwd",
                "/v1/files/../../../../etc/passwd",
                "/v1/files/a/%2E%2E/%2E%2E/%2E%2E/%2E%2E/%2E%2E/etc",
                "/v1/files/%2e%2e/%2e%2e/%2e%2e/%2e%2e")) {
            RestApiTest.assertError(f.exchange(RawRequest.get(target)), 403, "PERMISSION_DENIED");
            RestApiTest.assertError(
                    f.exchange(
                            RawRequest.put(target, new byte[] {1}).header("Content-Type", "application/octet-stream")),
                    403,
                    "PERMISSION_DENIED");
            RestApiTest.assertError(
                    f.exchange(RawRequest.delete(target + "?recursive=true")), 403, "PERMISSION_DENIED");
        }
        // shallow literal dot segments keep working, NUL stays 400
        Files.createDirectories(root.resolve("a"));
        Files.writeString(root.resolve("x"), "x");
        assertThat(f.exchange(RawRequest.get("/v1/files/a/b/../../x")).text()).isEqualTo("x");
        RestApiTest.assertError(f.exchange(RawRequest.get("/v1/files/a/%00")), 400, "INVALID_ARGUMENT");
    }

    @Test
    void namesThatAreNotUtf8AreListedReadAndDeletedByTheirBytes() throws Exception {
        python("import os\n"
                + "os.mkdir(b'dir')\n"
                + "open(b'dir/\\xff\\xfe', 'wb').write(b'raw')\n"
                + "open(b'dir/ok', 'wb').write(b'ok')\n"
                + "os.mkdir(b'dir/sub\\x80')\n"
                + "open(b'dir/sub\\x80/\\xc3(', 'wb').write(b'deep')\n");
        RawResponse list = f.exchange(RawRequest.get("/v1/files/dir"));
        assertThat(list.status()).as(list.describe()).isEqualTo(200);
        // upstream's rendering (one U+FFFD per invalid byte) plus the bytes that address the entry
        assertThat(list.text())
                .contains("{\"name\":\"\uFFFD\uFFFD\",\"name_encoded\":\"%FF%FE\",\"size\":3,")
                .contains("{\"name\":\"ok\",\"size\":2,")
                .contains("{\"name\":\"sub\uFFFD\",\"name_encoded\":\"sub%80\",\"size\":");
        assertThat(list.text().indexOf("\"ok\"")).isLessThan(list.text().indexOf("sub%80")); // byte order
        assertThat(list.text().indexOf("sub%80")).isLessThan(list.text().indexOf("%FF%FE"));

        assertThat(f.exchange(RawRequest.get("/v1/files/dir/%FF%FE")).text()).isEqualTo("raw");
        assertThat(f.exchange(RawRequest.get("/v1/files/dir/sub%80/%C3(")).text())
                .isEqualTo("deep");
        assertThat(f.exchange(RawRequest.put("/v1/files/dir/sub%80/%FE", "new".getBytes())
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(f.exchange(RawRequest.get("/v1/files/dir/sub%80/%FE")).text())
                .isEqualTo("new");
        assertThat(f.exchange(RawRequest.delete("/v1/files/dir/%FF%FE")).status())
                .isEqualTo(204);
        assertThat(f.exchange(RawRequest.get("/v1/files/dir/%FF%FE")).status()).isEqualTo(404);
        assertThat(entriesIn("dir")).isEqualTo(2);
        // before: 409 "pass recursive=true" although it was passed, and the names stayed
        assertThat(f.exchange(RawRequest.delete("/v1/files/dir?recursive=true")).status())
                .isEqualTo(204);
        assertThat(root.resolve("dir")).doesNotExist();
    }
}
