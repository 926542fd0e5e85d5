package io.sandboxd.client.cli;

import static io.sandboxd.client.cli.CliProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ResourceSampler;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code cp}, {@code ls}, {@code rm} as real processes against the packaged daemon. */
class CliFilesIT {
    static RunningDaemon daemon;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start("cli-files");
    }

    @AfterAll
    static void stop() {
        daemon.close();
    }

    static CliProcess run(String... args) {
        return cli(args).env("SANDBOXD_GRPC_ADDR", daemon.grpcTarget()).env("SANDBOXD_REST_ADDR", daemon.restBase());
    }

    @Test
    void copiesOneGibibyteBothWaysThroughA64MibHeap() throws Exception {
        long size = 1L << 30;
        Path local = tmp.resolve("big.bin");
        String sha = writeFile(local, size);
        long t = System.nanoTime();
        Process up = run("cp", local.toString(), ":big/one.bin")
                .jvm("-Xmx64m")
                .builder()
                .start();
        long upRss;
        try (ResourceSampler rss = new ResourceSampler(up.pid())) {
            CliProcess.drain(up.getInputStream());
            CliProcess.drain(up.getErrorStream());
            up.getOutputStream().close();
            assertThat(up.waitFor(120, TimeUnit.SECONDS)).isTrue();
            upRss = rss.maxRssBytes();
        }
        assertThat(up.exitValue()).isZero();
        double upSeconds = (System.nanoTime() - t) / 1e9;
        Path remote = daemon.rootDir().resolve("big/one.bin");
        assertThat(Files.size(remote)).isEqualTo(size);
        assertThat(sha256(remote)).isEqualTo(sha);

        Path back = tmp.resolve("back.bin");
        t = System.nanoTime();
        CliProcess.Result down = run("cp", ":big/one.bin", back.toString())
                .jvm("-Xmx64m")
                .timeout(Duration.ofSeconds(120))
                .run();
        double downSeconds = (System.nanoTime() - t) / 1e9;
        assertThat(down.exitCode()).as(down.toString()).isZero();
        assertThat(Files.size(back)).isEqualTo(size);
        assertThat(sha256(back)).isEqualTo(sha);
        assertThat(upRss).as("CLI resident memory during the upload").isLessThan(300L << 20);
        System.out.printf(
                "1 GiB cp up %.1f s, down %.1f s, CLI max RSS (up) %d MiB%n", upSeconds, downSeconds, upRss >> 20);
        Files.delete(remote);
    }

    @Test
    void copiesFromStdinAndToStdout() throws Exception {
        Path local = tmp.resolve("s.bin");
        String sha = writeFile(local, 48L << 20);
        CliProcess.Result up =
                run("cp", "-", ":s/piped.bin").stdin(local).jvm("-Xmx64m").run();
        assertThat(up.exitCode()).as(up.toString()).isZero();
        assertThat(sha256(daemon.rootDir().resolve("s/piped.bin"))).isEqualTo(sha);
        Path out = tmp.resolve("out.bin");
        CliProcess.Result down =
                run("cp", ":s/piped.bin", "-").stdoutTo(out).jvm("-Xmx64m").run();
        assertThat(down.exitCode()).isZero();
        assertThat(sha256(out)).isEqualTo(sha);
    }

    @Test
    void aTrailingSlashOrALocalDirectoryTakesTheOtherSidesName() throws Exception {
        Path local = Files.writeString(tmp.resolve("named.txt"), "named");
        Files.setPosixFilePermissions(local, PosixFilePermissions.fromString("rwxr-x---"));
        assertThat(run("cp", local.toString(), ":dir/").run().exitCode()).isZero();
        Path remote = daemon.rootDir().resolve("dir/named.txt");
        assertThat(remote).hasContent("named");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(remote)))
                .as("mode kept")
                .isEqualTo("rwxr-x---");
        Path into = Files.createDirectory(tmp.resolve("into"));
        assertThat(run("cp", ":dir/named.txt", into.toString()).run().exitCode())
                .isZero();
        assertThat(into.resolve("named.txt")).hasContent("named");
        try (var files = Files.list(into)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("no temp file left")
                    .containsExactly("named.txt");
        }
    }

    @Test
    void aMissingRemoteFileIsOneLine404AndLeavesNoLocalFile() throws Exception {
        Path target = tmp.resolve("never.txt");
        CliProcess.Result r = run("cp", ":nope/x.txt", target.toString()).run();
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr()).isEqualTo("sandboxd-cli: cp: /nope/x.txt: not found (404)\n");
        try (var files = Files.list(tmp)) {
            assertThat(files).as("no file, no temp file").isEmpty();
        }
        CliProcess.Result toStdout = run("cp", ":nope/x.txt", "-").run();
        assertThat(toStdout.stderr()).isEqualTo("sandboxd-cli: cp: /nope/x.txt: not found (404)\n");
        assertThat(toStdout.stdoutBytes()).isEmpty();
        CliProcess.Result local =
                run("cp", tmp.resolve("absent").toString(), ":x").run();
        assertThat(local.exitCode()).isEqualTo(1);
        assertThat(local.stderr())
                .isEqualTo("sandboxd-cli: cp: " + tmp.resolve("absent") + ": no such file or directory\n");
        CliProcess.Result dir = run("cp", ":", tmp.resolve("x").toString()).run();
        assertThat(dir.exitCode()).isEqualTo(1);
        assertThat(dir.stderr()).isEqualTo("sandboxd-cli: cp: /: is a directory\n");
    }

    @Test
    void lsPrintsLongLinesAndJson() throws Exception {
        Files.createDirectories(daemon.rootDir().resolve("ls/sub"));
        Files.writeString(daemon.rootDir().resolve("ls/a.txt"), "12345");
        Files.setPosixFilePermissions(
                daemon.rootDir().resolve("ls/a.txt"), PosixFilePermissions.fromString("rw-r-----"));
        CliProcess.Result r = run("ls", ":ls").run();
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout().lines().toList()).hasSize(2);
        assertThat(r.stdout().lines().toList().get(0))
                .matches("-rw-r----- +5 \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ a\\.txt");
        assertThat(r.stdout().lines().toList().get(1)).matches("drwx.* sub/");

        CliProcess.Result j = run("ls", "--json", ":ls").run();
        JsonNode root = JsonMapper.builder().build().readTree(j.stdout());
        assertThat(root.path("path").asString()).isEqualTo("/ls");
        assertThat(root.path("entries").size()).isEqualTo(2);
        JsonNode a = root.path("entries").get(0);
        assertThat(a.path("name").asString()).isEqualTo("a.txt");
        assertThat(a.path("size").asLong()).isEqualTo(5);
        assertThat(a.path("type").asString()).isEqualTo("file");
        assertThat(a.path("mode").asString()).isEqualTo("0640");
        assertThat(a.path("modified_at").asString()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(root.path("entries").get(1).path("type").asString()).isEqualTo("directory");

        CliProcess.Result file = run("ls", ":ls/a.txt").run();
        assertThat(file.stdout()).as("a file lists as itself").matches("-rw-r----- +5 \\S+ a\\.txt\n");
        assertThat(run("ls").run().stdout()).contains(" ls/\n");
        CliProcess.Result missing = run("ls", ":ls/zzz").run();
        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.stderr()).isEqualTo("sandboxd-cli: ls: /ls/zzz: not found (404)\n");
    }

    @Test
    void rmNeedsRForANonEmptyDirectory() throws Exception {
        Files.createDirectories(daemon.rootDir().resolve("rm/deep"));
        Files.writeString(daemon.rootDir().resolve("rm/deep/f"), "x");
        CliProcess.Result refused = run("rm", ":rm").run();
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.stderr())
                .startsWith("sandboxd-cli: rm: /rm: conflict: ")
                .endsWith(" (409)\n");
        assertThat(daemon.rootDir().resolve("rm/deep/f")).exists();
        assertThat(run("rm", "-r", ":rm").run().exitCode()).isZero();
        assertThat(daemon.rootDir().resolve("rm")).doesNotExist();
        Files.writeString(daemon.rootDir().resolve("rm-one"), "x");
        CliProcess.Result some = run("rm", ":rm-one", ":rm-none").run();
        assertThat(some.exitCode()).as("every path is tried; one failed").isEqualTo(1);
        assertThat(some.stderr()).isEqualTo("sandboxd-cli: rm: /rm-none: not found (404)\n");
        assertThat(daemon.rootDir().resolve("rm-one")).doesNotExist();
    }

    /** Writes {@code size} bytes: a 1 MiB pseudo-random block, each copy stamped with its index. @return sha-256 hex */
    static String writeFile(Path file, long size) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] block = new byte[1 << 20];
        new Random(42).nextBytes(block);
        ByteBuffer buf = ByteBuffer.wrap(block);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long i = 0; i * block.length < size; i++) {
                buf.clear().putLong(0, i);
                int n = (int) Math.min(block.length, size - i * block.length);
                buf.limit(n);
                md.update(block, 0, n);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    static String sha256(Path file) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            for (int r; (r = in.read(buf)) > 0; ) {
                md.update(buf, 0, r);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
