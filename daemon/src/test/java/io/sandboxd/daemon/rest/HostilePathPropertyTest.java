package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Thousands of generated hostile paths — encodings, {@code ..} mixes, NUL, long names, unicode,
 * symlink chains into and out of the root — against GET/HEAD/PUT/DELETE. Nothing outside the
 * root may be read, written or deleted, and no answer may be a 5xx.
 */
class HostilePathPropertyTest {
    private static final String SECRET = "TOP-SECRET-7d1f0c";
    private static Path base;
    private static Path sentinel;
    private static RestFixture fixture;
    private static Map<String, String> sentinelSnapshot;
    private static List<String> baseSnapshot;

    @BeforeContainer
    static void start() throws IOException {
        base = Files.createTempDirectory("hostile").toRealPath();
        sentinel = Files.createDirectories(base.resolve("sentinel"));
        Files.writeString(sentinel.resolve("secret.txt"), SECRET);
        Files.createDirectories(sentinel.resolve("dir/inner"));
        Files.writeString(sentinel.resolve("dir/inner/deep.txt"), SECRET);
        Files.writeString(base.resolve("sibling.txt"), SECRET);
        Files.createDirectories(base.resolve("root-evil"));
        fixture = new RestFixture(base);
        sentinelSnapshot = snapshot(sentinel);
        baseSnapshot = topLevel();
    }

    @AfterContainer
    static void stop() throws IOException {
        fixture.close();
        try (Stream<Path> s = Files.walk(base)) {
            s.sorted((a, b) -> b.getNameCount() - a.getNameCount())
                    .forEach(p -> p.toFile().delete());
        }
    }

    /** Rebuilt before every try: a DELETE may legitimately have cleared the root. */
    private static void layout() throws IOException {
        Path root = fixture.root;
        Files.createDirectories(root.resolve("sub/deeper"));
        Files.writeString(root.resolve("sub/file.txt"), "inside");
        link(root.resolve("out"), Path.of("../sentinel"));
        link(root.resolve("outabs"), sentinel);
        link(root.resolve("outfile"), sentinel.resolve("secret.txt"));
        link(root.resolve("chain1"), Path.of("chain2"));
        link(root.resolve("chain2"), Path.of("sub/../chain3"));
        link(root.resolve("chain3"), Path.of("../sentinel/dir"));
        link(root.resolve("in"), Path.of("sub"));
        link(root.resolve("inabs"), root.resolve("sub"));
        link(root.resolve("loop"), Path.of("loop"));
        link(root.resolve("up"), Path.of(".."));
        link(root.resolve("self"), Path.of("."));
        link(root.resolve("sub/back"), Path.of("../../sentinel/secret.txt"));
        link(root.resolve("sub/deeper/up2"), Path.of("../.."));
        link(root.resolve("sibling"), Path.of("../root-evil"));
    }

    private static void link(Path link, Path target) throws IOException {
        if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, target);
        }
    }

    private static Map<String, String> snapshot(Path dir) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.toList()) {
                String v = Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                        ? Files.readString(p) + "|" + Files.getPosixFilePermissions(p)
                        : "dir|" + Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
                m.put(dir.relativize(p).toString(), v);
            }
        }
        return m;
    }

    private static List<String> topLevel() throws IOException {
        try (Stream<Path> s = Files.list(base)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Provide
    Arbitrary<String> hostileTargets() {
        Arbitrary<String> segment = Arbitraries.oneOf(
                Arbitraries.of(
                        "..",
                        ".",
                        "%2E%2E",
                        "%2e%2E",
                        "%2E",
                        ".%2E",
                        "..%2F",
                        "%2F..",
                        "%252E%252E",
                        "%C0%AE%C0%AE",
                        "%2F",
                        "",
                        "%00",
                        "a%00b",
                        "%FF",
                        "%25",
                        "%",
                        "%2",
                        "\u00e9",
                        "%F0%9F%98%80",
                        "\u202e",
                        "out",
                        "outabs",
                        "outfile",
                        "chain1",
                        "chain2",
                        "chain3",
                        "in",
                        "inabs",
                        "loop",
                        "up",
                        "self",
                        "sub",
                        "back",
                        "deeper",
                        "up2",
                        "file.txt",
                        "secret.txt",
                        "dir",
                        "inner",
                        "deep.txt",
                        "sentinel",
                        "root",
                        "root-evil",
                        "sibling",
                        "sibling.txt",
                        "new.txt",
                        ".sandboxd-upload-x",
                        "proc",
                        "self%2Ffd",
                        "etc",
                        "passwd",
                        base.toString().substring(1).replace("/", "%2F")),
                Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(6),
                Arbitraries.strings().withChars('a').ofMinLength(250).ofMaxLength(300));
        Arbitrary<String> sep = Arbitraries.of("/", "%2F", "%2f", "//", "/./");
        Arbitrary<List<String>> segs = segment.list().ofMinSize(0).ofMaxSize(8);
        Arbitrary<List<String>> seps = sep.list().ofSize(8);
        Arbitrary<String> lead = Arbitraries.of("", "/", "%2F", "//");
        return Combinators.combine(lead, segs, seps).as((l, ss, ps) -> {
            StringBuilder sb = new StringBuilder("/v1/files/").append(l);
            for (int i = 0; i < ss.size(); i++) {
                if (i > 0) {
                    sb.append(ps.get(i));
                }
                sb.append(ss.get(i));
            }
            return sb.toString();
        });
    }

    @Property(tries = 2000)
    void nothingOutsideTheRootIsTouchedAndNothingIs5xx(
            @ForAll("hostileTargets") String target, @ForAll("methods") String method, @ForAll boolean recursive)
            throws IOException {
        layout();
        String t = method.equals("DELETE") && recursive ? target + "?recursive=true" : target;
        RawResponse r = fixture.exchange(RawRequest.of(method, t)
                .body(method.equals("PUT") ? ("pwned " + target).getBytes(StandardCharsets.UTF_8) : null));
        assertThat(r.status()).as(method + " " + t + " -> " + r.describe()).isLessThan(500);
        // A listing echoes the requested path in "path"; a re-rooted request may legitimately spell
        // the host base path (it then names <root>/tmp/...). Host paths must not appear elsewhere.
        String body = r.text().replaceFirst("^\\{\"path\":\"(?:[^\"\\\\]|\\\\.)*\"", "{\"path\":\"\"");
        assertThat(body).as(method + " " + t).doesNotContain(SECRET).doesNotContain(base.toString());
        if (r.status() >= 400 && !method.equals("HEAD")) {
            assertThat(r.header("Content-Type")).as(method + " " + t).isEqualTo("application/json");
        }
        assertThat(snapshot(sentinel)).as(method + " " + t).isEqualTo(sentinelSnapshot);
        assertThat(topLevel()).as(method + " " + t).isEqualTo(baseSnapshot);
        assertThat(Files.readString(base.resolve("sibling.txt"))).isEqualTo(SECRET);
        try (Stream<Path> s = Files.list(base.resolve("root-evil"))) {
            assertThat(s.count()).as(method + " " + t).isZero();
        }
    }

    @Provide
    Arbitrary<String> methods() {
        return Arbitraries.of("GET", "HEAD", "PUT", "DELETE");
    }
}
