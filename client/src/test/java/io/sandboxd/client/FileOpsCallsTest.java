package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.testkit.RunningDaemon;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link RemoteFiles} (runtime-contract §4.3) against the packaged daemon. */
class FileOpsCallsTest {
    static RunningDaemon daemon;
    static SandboxdClient client;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start("file-ops", s -> s);
        client = TestDaemons.client(daemon);
    }

    @AfterAll
    static void stop() {
        client.close();
        daemon.close();
    }

    @Test
    void statMkdirMoveChmod() throws Exception {
        RemoteFiles fs = client.files();
        fs.mkdir("ops/a b/c", true);
        assertThat(Files.isDirectory(daemon.rootDir().resolve("ops/a b/c"))).isTrue();
        client.write("ops/a b/c/f+1.txt", "hello".getBytes());
        EntryStat s = fs.stat("/ops/a b/c/f+1.txt");
        assertThat(s.type()).isEqualTo("file");
        assertThat(s.size()).isEqualTo(5);
        assertThat(Optional.of(s.etag()))
                .isEqualTo(client.head("ops/a b/c/f+1.txt").etag());

        fs.chmod("ops/a b/c/f+1.txt", 0600);
        assertThat(fs.stat("ops/a b/c/f+1.txt").mode()).isEqualTo("0600");
        fs.move("ops/a b/c/f+1.txt", "ops/moved", false);
        assertThat(fs.stat("ops/moved").size()).isEqualTo(5);
        client.write("ops/other", "x".getBytes());
        assertThatThrownBy(() -> fs.move("ops/other", "ops/moved", false))
                .isInstanceOfSatisfying(
                        RestCallException.class, e -> assertThat(e.httpStatus()).isEqualTo(409));
        fs.move("ops/other", "ops/moved", true);
        assertThat(client.readBytes("ops/moved")).isEqualTo("x".getBytes());
        assertThatThrownBy(() -> fs.mkdir("ops/moved", false))
                .isInstanceOfSatisfying(
                        RestCallException.class, e -> assertThat(e.errorCode()).isEqualTo("CONFLICT"));

        Files.createSymbolicLink(daemon.rootDir().resolve("ops/link"), Path.of("moved"));
        EntryStat l = fs.stat("ops/link");
        assertThat(l.isSymlink()).isTrue();
        assertThat(l.linkTarget()).isEqualTo("moved");
        assertThat(l.linkResolves()).isEqualTo("inside");
    }

    @Test
    void pagesAndWalks() throws Exception {
        RemoteFiles fs = client.files();
        for (int i = 0; i < 25; i++) {
            client.write("walk/d" + (i % 3) + "/f" + i, new byte[0]);
        }
        TreePage first = fs.list("walk", 2, 10, null);
        assertThat(first.entries()).hasSize(10);
        assertThat(first.nextCursor()).isNotNull();
        List<String> all = new ArrayList<>();
        for (TreeEntry e : fs.walk("walk", 2)) {
            all.add(e.path());
        }
        assertThat(all).hasSize(28).startsWith("d0", "d0/f0", "d0/f12");
        List<String> paged = new ArrayList<>();
        String cursor = null;
        do {
            TreePage p = fs.list("walk", 2, 7, cursor);
            p.entries().forEach(e -> paged.add(e.path()));
            cursor = p.nextCursor();
        } while (cursor != null);
        assertThat(paged).isEqualTo(all);
    }

    @Test
    void archivesRoundTrip() throws Exception {
        RemoteFiles fs = client.files();
        client.write("tree/a/b.txt", "bee".getBytes());
        fs.mkdir("tree/empty", false);
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        long bytes = fs.downloadArchive("tree", false, tar);
        assertThat(bytes).isEqualTo(tar.size()).isGreaterThan(1024);
        long entries = fs.uploadArchive("copy", new ByteArrayInputStream(tar.toByteArray()), false);
        assertThat(entries).as("./ a/ a/b.txt empty/").isEqualTo(4);
        assertThat(client.readBytes("copy/a/b.txt")).isEqualTo("bee".getBytes());
        assertThat(fs.stat("copy/empty").isDirectory()).isTrue();
        assertThatThrownBy(() -> fs.uploadArchive("copy", new ByteArrayInputStream(tar.toByteArray()), false))
                .isInstanceOfSatisfying(
                        RestCallException.class, e -> assertThat(e.httpStatus()).isEqualTo(409));
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        fs.downloadArchive("tree", true, gz);
        fs.uploadArchive("copy", new ByteArrayInputStream(gz.toByteArray()), true);
        assertThat(client.readBytes("copy/a/b.txt")).isEqualTo("bee".getBytes());
        // without waiting for the disk: the same tree, and replace still explicit
        assertThat(fs.uploadArchive("unsynced", new ByteArrayInputStream(tar.toByteArray()), false, false))
                .isEqualTo(4);
        assertThat(client.readBytes("unsynced/a/b.txt")).isEqualTo("bee".getBytes());
        assertThatThrownBy(
                        () -> fs.uploadArchive("unsynced", new ByteArrayInputStream(tar.toByteArray()), false, false))
                .isInstanceOfSatisfying(
                        RestCallException.class, e -> assertThat(e.httpStatus()).isEqualTo(409));
    }
}
