package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The REST half of the client against the packaged daemon. */
class FileCallsTest {
    static RunningDaemon daemon;
    static SandboxdClient client;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start(
                "file-calls", s -> s.withEnv("SANDBOX_ID", "sbx-42").withEnv("SANDBOX_TOKEN", "hidden"));
        client = TestDaemons.client(daemon);
    }

    @AfterAll
    static void stop() {
        client.close();
        daemon.close();
    }

    @Test
    void writeThenReadBytesThroughAnEncodedPath() throws Exception {
        client.write("dir one/a b+c%.txt", "hello".getBytes(StandardCharsets.UTF_8));
        assertThat(daemon.rootDir().resolve("dir one/a b+c%.txt")).hasContent("hello");
        assertThat(client.readBytes("/dir one/a b+c%.txt"))
                .asString(StandardCharsets.UTF_8)
                .isEqualTo("hello");
        assertThat(RestPaths.files("/dir one/a b+c%.txt")).isEqualTo("/v1/files/dir%20one%2Fa%20b%2Bc%25.txt");
    }

    @Test
    void streamsAnUploadOfUnknownLengthAndADownloadOfAnySize() throws Exception {
        long size = 40L << 20;
        MessageDigest up = MessageDigest.getInstance("SHA-256");
        InputStream source = new InputStream() {
            final Random r = new Random(7);
            final byte[] block = new byte[8192];
            long left = size;

            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left == 0) {
                    return -1;
                }
                int n = (int) Math.min(Math.min(len, block.length), left);
                r.nextBytes(block);
                System.arraycopy(block, 0, b, off, n);
                up.update(b, off, n);
                left -= n;
                return n;
            }
        };
        client.write("big/stream.bin", source);
        assertThat(Files.size(daemon.rootDir().resolve("big/stream.bin"))).isEqualTo(size);
        MessageDigest down = MessageDigest.getInstance("SHA-256");
        long n = client.read("big/stream.bin", new OutputStream() {
            @Override
            public void write(int b) {
                down.update((byte) b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                down.update(b, off, len);
            }
        });
        assertThat(n).isEqualTo(size);
        assertThat(down.digest()).isEqualTo(up.digest());
    }

    @Test
    void uploadsALocalFileWithItsModeAndLength(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path local = Files.writeString(tmp.resolve("run.sh"), "#!/bin/sh\necho ran\n");
        client.write("bin/run.sh", local, WriteOptions.defaults().mode(0750));
        assertThat(PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(daemon.rootDir().resolve("bin/run.sh"))))
                .isEqualTo("rwxr-x---");
        assertThat(client.execute("sh", "-c", "./bin/run.sh").stdoutText()).isEqualTo("ran\n");
        assertThatThrownBy(() -> client.write("x", tmp.resolve("missing"))).isInstanceOf(UncheckedIOException.class);
    }

    @Test
    void readsARange() {
        client.write("range.txt", "0123456789".getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(client.read("range.txt", 2, 4, out)).isEqualTo(4);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("2345");
        try (FileDownload d = client.open("range.txt", 7, -1)) {
            assertThat(d.info().status()).isEqualTo(206);
            assertThat(d.info().contentRange()).hasValue("bytes 7-9/10");
        }
        assertThatThrownBy(() -> client.open("range.txt", 50, -1))
                .isInstanceOfSatisfying(
                        RestCallException.class, e -> assertThat(e.httpStatus()).isEqualTo(416));
    }

    @Test
    void headAndExistsTellSizeEtagTimeAndKind() {
        client.write("h/file.txt", "12345".getBytes(StandardCharsets.UTF_8));
        FileInfo f = client.head("h/file.txt");
        assertThat(f.size()).hasValue(5);
        assertThat(f.etag()).isPresent();
        assertThat(f.directory()).isFalse();
        assertThat(f.lastModified()).hasValueSatisfying(t -> assertThat(t)
                .isBetween(Instant.now().minusSeconds(120), Instant.now().plusSeconds(5)));
        assertThat(client.head("h").directory()).isTrue();
        assertThat(client.exists("h/file.txt")).isTrue();
        assertThat(client.exists("h/nope.txt")).isFalse();
        assertThatThrownBy(() -> client.head("h/nope.txt")).isInstanceOfSatisfying(RestCallException.class, e -> {
            assertThat(e.httpStatus()).isEqualTo(404);
            assertThat(e.errorCode()).isEqualTo("NOT_FOUND");
            assertThat(e.path()).isEqualTo("/h/nope.txt");
        });
    }

    @Test
    void listsADirectorySortedWithTypesModesAndSizes() {
        client.write("l/b.txt", new byte[3]);
        client.write("l/a.txt", new byte[7], WriteOptions.defaults().mode(0600));
        client.write("l/sub/c.txt", new byte[1]);
        DirectoryListing l = client.list("l");
        assertThat(l.path()).isEqualTo("/l");
        assertThat(l.entries()).extracting(FileEntry::name).containsExactly("a.txt", "b.txt", "sub");
        FileEntry a = l.entries().get(0);
        assertThat(a.size()).isEqualTo(7);
        assertThat(a.mode()).isEqualTo("0600");
        assertThat(a.type()).isEqualTo("file");
        assertThat(a.modifiedAt()).isAfter(Instant.now().minusSeconds(120));
        assertThat(l.entries().get(2).isDirectory()).isTrue();
        assertThat(client.list("/").entries()).extracting(FileEntry::name).contains("l");
        assertThatThrownBy(() -> client.list("l/a.txt"))
                .isInstanceOf(NotADirectoryException.class)
                .hasMessage("/l/a.txt: not a directory");
        assertThatThrownBy(() -> client.readBytes("l"))
                .isInstanceOf(IsADirectoryException.class)
                .hasMessage("/l: is a directory");
    }

    @Test
    void deleteNeedsRecursiveForANonEmptyDirectory() {
        client.write("d/x/y.txt", new byte[1]);
        assertThatThrownBy(() -> client.delete("d")).isInstanceOfSatisfying(RestCallException.class, e -> {
            assertThat(e.httpStatus()).isEqualTo(409);
            assertThat(e.errorCode()).isEqualTo("CONFLICT");
            assertThat(e.errorMessage()).isNotBlank();
            assertThat(e.method()).isEqualTo("DELETE");
        });
        client.delete("d", true);
        assertThat(client.exists("d")).isFalse();
        assertThatThrownBy(() -> client.delete("d"))
                .isInstanceOfSatisfying(
                        RestCallException.class, e -> assertThat(e.httpStatus()).isEqualTo(404));
    }

    @Test
    void preconditionsAndDigestsAreSentAndEnforced() throws Exception {
        client.write("p.txt", "v1".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> client.write(
                        "p.txt",
                        "v2".getBytes(StandardCharsets.UTF_8),
                        WriteOptions.defaults().createOnly()))
                .isInstanceOfSatisfying(
                        RestCallException.class, e -> assertThat(e.httpStatus()).isEqualTo(412));
        String etag = client.head("p.txt").etag().orElseThrow();
        client.write(
                "p.txt",
                "v2".getBytes(StandardCharsets.UTF_8),
                WriteOptions.defaults().ifMatch(etag));
        assertThatThrownBy(() -> client.write(
                        "p.txt",
                        "v3".getBytes(StandardCharsets.UTF_8),
                        WriteOptions.defaults().ifMatch(etag)))
                .isInstanceOfSatisfying(
                        RestCallException.class, e -> assertThat(e.errorCode()).isEqualTo("PRECONDITION_FAILED"));
        String wrong = HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest("other".getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> client.write(
                        "p.txt",
                        "v4".getBytes(StandardCharsets.UTF_8),
                        WriteOptions.defaults().sha256(wrong)))
                .isInstanceOfSatisfying(
                        RestCallException.class, e -> assertThat(e.httpStatus()).isEqualTo(400));
        String right = HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest("v5".getBytes(StandardCharsets.UTF_8)));
        client.write(
                "p.txt",
                new ByteArrayInputStream("v5".getBytes(StandardCharsets.UTF_8)),
                2,
                WriteOptions.defaults().sha256(right));
        assertThat(daemon.rootDir().resolve("p.txt")).hasContent("v5");
    }

    @Test
    void aFailingLocalSourceIsReportedAsLocalAndLeavesNothing() {
        InputStream broken = new InputStream() {
            int n;

            @Override
            public int read() throws IOException {
                if (n++ > 100_000) {
                    throw new IOException("local disk on fire");
                }
                return 'x';
            }
        };
        assertThatThrownBy(() -> client.write("broken.txt", broken))
                .isInstanceOf(UncheckedIOException.class)
                .hasRootCauseMessage("local disk on fire");
        assertThat(client.exists("broken.txt")).isFalse();
    }

    @Test
    void healthAndMetadata() {
        Health h = client.health();
        assertThat(h.status()).isEqualTo("ok");
        assertThat(h.uptimeSeconds()).isBetween(0L, 3600L);
        assertThat(client.metadata()).containsEntry("SANDBOX_ID", "sbx-42").doesNotContainKey("SANDBOX_TOKEN");
    }

    @Test
    void theSdksSlashEncodingAndALiteralSlashNameTheSameFile() throws Exception {
        client.write("same/file.txt", "one".getBytes(StandardCharsets.UTF_8));
        try (RawHttp h = RawHttp.connect("127.0.0.1", daemon.restPort(), Duration.ofSeconds(10))) {
            RawResponse literal =
                    h.send(RawRequest.get("/v1/files/same/file.txt")).read();
            RawResponse encoded =
                    h.send(RawRequest.get("/v1/files/same%2Ffile.txt")).read();
            assertThat(literal.status()).isEqualTo(200);
            assertThat(literal.text()).isEqualTo("one");
            assertThat(encoded.text()).isEqualTo("one");
        }
    }
}
