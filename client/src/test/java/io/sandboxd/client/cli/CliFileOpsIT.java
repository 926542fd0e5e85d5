package io.sandboxd.client.cli;

import static io.sandboxd.client.cli.CliProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code stat}, {@code mkdir}, {@code mv}, {@code chmod}, {@code ls --depth}, {@code cp -r} as real processes. */
class CliFileOpsIT {
    static final JsonMapper JSON = JsonMapper.builder().build();
    static RunningDaemon daemon;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start("cli-file-ops");
    }

    @AfterAll
    static void stop() {
        daemon.close();
    }

    static CliProcess.Result run(String... args) throws Exception {
        return cli(args)
                .env("SANDBOXD_GRPC_ADDR", daemon.grpcTarget())
                .env("SANDBOXD_REST_ADDR", daemon.restBase())
                .run();
    }

    static CliProcess.Result ok(String... args) throws Exception {
        CliProcess.Result r = run(args);
        assertThat(r.exitCode()).as(String.join(" ", args) + ": " + r).isZero();
        return r;
    }

    @Test
    void everyVerbAgainstTheDaemon() throws Exception {
        Path root = daemon.rootDir();
        ok("mkdir", "-p", ":w/a/b");
        assertThat(Files.isDirectory(root.resolve("w/a/b"))).isTrue();
        assertThat(run("mkdir", ":w/a").exitCode()).isEqualTo(1);
        Files.writeString(root.resolve("w/a/b/f.txt"), "hello");

        JsonNode st = JSON.readTree(ok("stat", "--json", ":w/a/b/f.txt").stdout());
        assertThat(st.get("type").asString()).isEqualTo("file");
        assertThat(st.get("size").asLong()).isEqualTo(5);
        assertThat(ok("stat", ":w/a/b").stdout()).startsWith("drwx");

        ok("chmod", "0600", ":w/a/b/f.txt");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("w/a/b/f.txt"))))
                .isEqualTo("rw-------");
        CliProcess.Result bad = run("chmod", "4755", ":w/a/b/f.txt");
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.stderr()).contains("setuid");

        ok("mv", ":w/a/b/f.txt", ":w/g.txt");
        Files.writeString(root.resolve("w/h.txt"), "h");
        assertThat(run("mv", ":w/h.txt", ":w/g.txt").exitCode()).isEqualTo(1);
        ok("mv", "--overwrite", ":w/h.txt", ":w/g.txt");
        assertThat(Files.readString(root.resolve("w/g.txt"))).isEqualTo("h");

        String deep = ok("ls", "--depth", "3", ":w").stdout();
        assertThat(deep.lines().map(l -> l.substring(l.lastIndexOf(' ') + 1))).containsExactly("a/", "a/b/", "g.txt");
        JsonNode tree = JSON.readTree(ok("ls", "--json", "--depth", "2", ":w").stdout());
        assertThat(tree.get("entries")).hasSize(3);
        assertThat(tree.get("entries").get(1).get("path").asString()).isEqualTo("a/b");
        // plain ls is the listing it always was
        assertThat(ok("ls", ":w").stdout().lines()).hasSize(2);
    }

    @Test
    void copiesDirectoriesBothWays() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("proj/src"));
        Files.createDirectories(src.resolve("empty"));
        Files.writeString(src.resolve("main.c"), "int main;");
        Files.createSymbolicLink(tmp.resolve("proj/link"), Path.of("src/main.c"));
        Files.setPosixFilePermissions(src.resolve("main.c"), PosixFilePermissions.fromString("rwxr-x---"));
        ok("mkdir", ":dest");
        ok("cp", "-r", tmp.resolve("proj").toString(), ":dest");
        Path remote = daemon.rootDir().resolve("dest/proj");
        assertThat(Files.readString(remote.resolve("src/main.c"))).isEqualTo("int main;");
        assertThat(Files.isDirectory(remote.resolve("src/empty"))).isTrue();
        assertThat(Files.readSymbolicLink(remote.resolve("link"))).isEqualTo(Path.of("src/main.c"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(remote.resolve("src/main.c"))))
                .isEqualTo("rwxr-x---");

        Path back = tmp.resolve("back");
        ok("cp", "-r", ":dest/proj", back.toString());
        assertThat(Files.readString(back.resolve("src/main.c"))).isEqualTo("int main;");
        assertThat(Files.readSymbolicLink(back.resolve("link"))).isEqualTo(Path.of("src/main.c"));
        assertThat(Files.isDirectory(back.resolve("src/empty"))).isTrue();
        // into an existing directory: a copy named after the source
        ok("cp", "-r", ":dest/proj", back.toString());
        assertThat(Files.readString(back.resolve("proj/src/main.c"))).isEqualTo("int main;");
        try (var s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString()).sorted().toList())
                    .as("no local staging directory stays")
                    .containsExactly("back", "proj");
        }
    }
}
