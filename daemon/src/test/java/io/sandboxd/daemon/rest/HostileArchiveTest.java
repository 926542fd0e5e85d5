package io.sandboxd.daemon.rest;

import static io.sandboxd.daemon.rest.ExtensionRoutesTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.daemon.fs.ArchiveLimits;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile archives (runtime-contract §4.3), made header by header in the test: each is refused
 * with 400 naming what is wrong, and nothing is written outside the staging directory: the whole
 * of the root's parent (names, types, sizes, modes, and the mtimes of every directory but the
 * one the staging directory is made in, so a write undone again would show) is the same after.
 */
class HostileArchiveTest {
    static final ArchiveLimits LIMITS = new ArchiveLimits(64 * 1024, 40);

    @TempDir
    Path tmp;

    RestFixture f;
    Path base;
    Path root;

    @BeforeEach
    void start() throws Exception {
        f = new RestFixture(tmp, c -> c, Map.of(), LIMITS);
        base = f.base;
        root = f.root;
        Files.createDirectories(root.resolve("uploads"));
        Files.createDirectories(root.resolve("existing/inner"));
        Files.writeString(root.resolve("existing/inner/file"), "keep");
        Files.writeString(base.resolve("outside.txt"), "outside");
    }

    @AfterEach
    void stop() {
        f.close();
    }

    /** One hostile ingredient: what it adds to an archive, and a word the refusal must contain. */
    record Hostile(String what, Consumer<RawTar> add, String expect) {}

    static final byte[] HUGE_PAX = new byte[2 * 1024 * 1024];

    static List<Hostile> hostiles() {
        List<Hostile> h = new ArrayList<>();
        h.add(new Hostile("dot-dot", t -> t.file("../escape", "x"), ".."));
        h.add(new Hostile("dot-dot inside", t -> t.file("a/../../escape", "x"), ".."));
        h.add(new Hostile("absolute", t -> t.file("/abs-escape", "x"), "absolute"));
        h.add(new Hostile("long dot-dot", t -> t.longName(RawTar.b("../../" + "n".repeat(120)), "x"), ".."));
        h.add(new Hostile("long absolute", t -> t.longName(RawTar.b("/" + "n".repeat(120)), "x"), "absolute"));
        h.add(new Hostile("pax absolute", t -> t.pax("path", RawTar.b("/pax-abs"), '0', "x", ""), "absolute"));
        h.add(new Hostile("pax dot-dot", t -> t.pax("path", RawTar.b("x/../../pax-esc"), '0', "x", ""), ".."));
        h.add(new Hostile("pax NUL", t -> t.pax("path", new byte[] {'a', 0, 'b'}, '0', "x", ""), "NUL"));
        h.add(new Hostile("through link to /", t -> t.symlink("l", "/").file("l/escape", "x"), "symlink"));
        h.add(new Hostile("through link up", t -> t.symlink("l", "../..").file("l/escape", "x"), "symlink"));
        h.add(new Hostile("through link to .", t -> t.symlink("l", ".").file("l/x", "x"), "symlink"));
        h.add(new Hostile(
                "through nested link",
                t -> t.dir("d", 0755).symlink("d/up", "../../..").file("d/up/escape", "x"),
                "symlink"));
        h.add(new Hostile("through file", t -> t.file("f", "x").file("f/under", "x"), "non-directory"));
        h.add(new Hostile("hard link up", t -> t.hardLink("h", "../../outside.txt"), "outside the archive"));
        h.add(new Hostile("hard link absolute", t -> t.hardLink("h", "/etc/passwd"), "outside the archive"));
        h.add(new Hostile("hard link forward", t -> t.hardLink("h", "later"), "no earlier entry"));
        h.add(new Hostile("hard link to dir", t -> t.dir("hd", 0755).hardLink("h", "hd"), "directory"));
        h.add(new Hostile(
                "pax hard link up", t -> t.pax("linkpath", RawTar.b("../x"), '1', "", "ok"), "outside the archive"));
        h.add(new Hostile("char device", t -> t.special("dev", '3'), "device or FIFO"));
        h.add(new Hostile("block device", t -> t.special("blk", '4'), "device or FIFO"));
        h.add(new Hostile("fifo", t -> t.special("fifo", '6'), "device or FIFO"));
        h.add(new Hostile(
                "too many bytes", t -> t.file(RawTar.b("big"), 0644, new byte[70 * 1024]), "--archive-max-bytes"));
        h.add(new Hostile(
                "too many entries",
                t -> {
                    for (int i = 0; i < 45; i++) {
                        t.file("many" + i, "");
                    }
                },
                "--archive-max-entries"));
        h.add(new Hostile("duplicate", t -> t.file("dup", "1").file("dup", "2"), "twice"));
        h.add(new Hostile("reserved name", t -> t.file(".sandboxd-upload-x", "x"), "reserved"));
        h.add(new Hostile("huge pax", t -> t.entry(RawTar.b("p"), 'x', 0644, HUGE_PAX, new byte[0]), "PAX"));
        h.add(new Hostile("truncated", t -> t.declared("cut", 10_000, new byte[600]), "could not be read"));
        return h;
    }

    /** Names, types, sizes and modes of everything under the root's parent; directory mtimes but the uploads dir's. */
    String snapshot() throws Exception {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> s = Files.walk(base)) {
            for (Path p : s.sorted().toList()) {
                PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                sb.append(base.relativize(p))
                        .append(' ')
                        .append(a.isDirectory() ? 'd' : a.isSymbolicLink() ? 'l' : 'f')
                        .append(' ')
                        .append(PosixFilePermissions.toString(a.permissions()))
                        .append(' ')
                        .append(a.isDirectory() ? 0 : a.size());
                if (a.isDirectory() && !p.equals(root.resolve("uploads"))) {
                    sb.append(' ').append(a.lastModifiedTime().toInstant());
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    static void benign(RawTar t, Random rnd, int n) {
        for (int i = 0; i < n; i++) {
            String name = "b" + rnd.nextInt(1000) + "-" + i;
            if (rnd.nextBoolean()) {
                t.dir(name, 0755).file(name + "/inner", "i");
            } else {
                t.file(name, "content " + i);
            }
        }
    }

    @Test
    void everyHostileArchiveIsRefusedAndWritesNothing() throws Exception {
        String before = snapshot();
        Random rnd = new Random(19);
        List<Hostile> all = hostiles();
        int tries = 0;
        for (int round = 0; round < 4; round++) {
            for (Hostile h : all) {
                RawTar t = new RawTar();
                benign(t, rnd, rnd.nextInt(4));
                h.add().accept(t);
                benign(t, rnd, rnd.nextInt(3));
                byte[] body = h.what().equals("truncated") ? t.unterminated() : t.bytes();
                RawResponse r =
                        f.exchange(RawRequest.put("/sandboxd/v1alpha1/fs/archive?path=uploads/t" + tries++, body));
                assertThat(r.status()).as(h.what() + ": " + r.describe()).isEqualTo(400);
                assertThat(json(r).get("message").asString()).as(h.what()).contains(h.expect());
                assertThat(snapshot())
                        .as(h.what() + ": nothing written outside staging")
                        .isEqualTo(before);
            }
        }
        assertThat(tries).isEqualTo(4 * all.size());
    }

    @Test
    void setuidAndSetgidBitsAreDropped() throws Exception {
        byte[] tar = new RawTar()
                .file(RawTar.b("suid"), 06755, RawTar.b("x"))
                .dir("sgid-dir", 02775)
                .bytes();
        RawResponse r = f.exchange(RawRequest.put("/sandboxd/v1alpha1/fs/archive?path=uploads/s", tar));
        assertThat(r.status()).as(r.describe()).isEqualTo(200);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("uploads/s/suid"))))
                .isEqualTo("rwxr-xr-x");
        int mode = (int) Files.getAttribute(root.resolve("uploads/s/suid"), "unix:mode");
        assertThat(mode & 06000).isZero();
        assertThat((int) Files.getAttribute(root.resolve("uploads/s/sgid-dir"), "unix:mode") & 06000)
                .isZero();
    }

    @Test
    void symlinksThemselvesMayPointAnywhere() throws Exception {
        byte[] tar =
                new RawTar().symlink("up", "../../..").symlink("abs", "/etc").bytes();
        assertThat(f.exchange(RawRequest.put("/sandboxd/v1alpha1/fs/archive?path=uploads/links", tar))
                        .status())
                .isEqualTo(200);
        assertThat(Files.readSymbolicLink(root.resolve("uploads/links/up"))).isEqualTo(Path.of("../../.."));
        // ...and every API path through them is still confined
        assertThat(f.exchange(RawRequest.get("/v1/files/uploads/links/abs/passwd"))
                        .status())
                .isEqualTo(403);
    }
}
