package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.daemon.errors.SandboxException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.BeforeTry;

/**
 * Deep paged listings (runtime-contract §4.3) over real random trees: pages put together are the
 * whole walk in depth-first byte order to the depth asked; a cursor stays valid however the tree
 * changes between pages (what existed throughout comes exactly once, order strictly rises).
 */
class TreeListingTest {
    static Path base;
    static Path root;
    static SandboxRoot sandbox;

    @BeforeContainer
    static void open() throws IOException {
        base = Files.createTempDirectory("tree-listing").toRealPath();
        root = Files.createDirectories(base.resolve("root"));
        sandbox = new SandboxRoot(root);
    }

    @AfterContainer
    static void close() throws IOException {
        sandbox.close();
        wipe(base);
    }

    @BeforeTry
    void clean() throws IOException {
        try (Stream<Path> s = Files.list(root)) {
            for (Path p : s.toList()) {
                wipe(p);
            }
        }
    }

    static void wipe(Path p) throws IOException {
        if (!Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isSymbolicLink(p)) {
            Files.delete(p);
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            s.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        }
    }

    /** A random tree: names from a small alphabet so siblings collide in prefix, dirs, files, links. */
    static void grow(Path dir, Random rnd, int level, int[] budget) throws IOException {
        int n = rnd.nextInt(6);
        for (int i = 0; i < n && budget[0] > 0; i++, budget[0]--) {
            String name = randomName(rnd);
            Path p = dir.resolve(name);
            if (Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            int kind = rnd.nextInt(10);
            if (kind < 4 && level < 5) {
                Files.createDirectory(p);
                grow(p, rnd, level + 1, budget);
            } else if (kind < 9) {
                Files.writeString(p, name);
            } else {
                Files.createSymbolicLink(p, Path.of(rnd.nextBoolean() ? ".." : "/etc"));
            }
        }
    }

    static String randomName(Random rnd) {
        String alphabet = "ab-./0";
        StringBuilder sb = new StringBuilder();
        int len = 1 + rnd.nextInt(3);
        for (int i = 0; i < len; i++) {
            char c = alphabet.charAt(rnd.nextInt(alphabet.length()));
            sb.append(c == '/' || c == '.' ? 'z' : c);
        }
        return sb.toString();
    }

    /** The expected walk: depth-first, names byte-wise, symlinks never entered. */
    static void expected(Path dir, List<String> prefix, int depth, List<String> out) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(p -> names.add(p.getFileName().toString()));
        }
        names.sort(Comparator.comparing(n -> n.getBytes(StandardCharsets.UTF_8), java.util.Arrays::compareUnsigned));
        for (String n : names) {
            List<String> path = new ArrayList<>(prefix);
            path.add(n);
            out.add(String.join("/", path));
            Path p = dir.resolve(n);
            if (depth > 1 && Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                expected(p, path, depth - 1, out);
            }
        }
    }

    static String show(TreeEntry e) {
        List<String> parts = new ArrayList<>();
        for (Name n : e.path()) {
            parts.add(n.display());
        }
        return String.join("/", parts);
    }

    /** Every page from {@code cursor} on, each through a fresh listing; @return paths in order. */
    static List<String> pages(int depth, int limit, Runnable betweenPages) throws Exception {
        List<String> out = new ArrayList<>();
        ListCursor cursor = null;
        for (int page = 0; ; page++) {
            List<TreeEntry> got = new ArrayList<>();
            try (TreeListing l = TreeListing.open(sandbox, "".getBytes(), depth, limit, cursor)) {
                l.forEach(got::add);
                assertThat(got.size()).isLessThanOrEqualTo(limit);
                cursor = l.next();
                // a cursor survives its text form
                cursor = cursor == null ? null : ListCursor.decode(cursor.encode());
            }
            got.forEach(e -> out.add(show(e)));
            if (cursor == null) {
                return out;
            }
            assertThat(got).as("a page with a next cursor is full").hasSize(limit);
            betweenPages.run();
            assertThat(page).as("paging ends").isLessThan(100_000);
        }
    }

    @Property(tries = 60)
    void pagesTogetherAreTheWholeWalk(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 6) int depth,
            @ForAll @IntRange(min = 1, max = 9) int limit)
            throws Exception {
        grow(root, new Random(seed), 0, new int[] {60});
        List<String> want = new ArrayList<>();
        expected(root, List.of(), depth, want);
        assertThat(pages(depth, limit, () -> {})).containsExactlyElementsOf(want);
    }

    @Property(tries = 40)
    void aCursorStaysValidWhileTheTreeChanges(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 4) int depth,
            @ForAll @IntRange(min = 1, max = 5) int limit)
            throws Exception {
        Random rnd = new Random(seed);
        grow(root, rnd, 0, new int[] {50});
        List<String> before = new ArrayList<>();
        expected(root, List.of(), depth, before);
        List<Path> changed = new ArrayList<>();
        List<String> got = pages(depth, limit, () -> {
            try {
                mutate(rnd, changed);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        List<String> after = new ArrayList<>();
        expected(root, List.of(), depth, after);
        // strictly rising in walk order: no duplicate, no step back
        for (int i = 1; i < got.size(); i++) {
            assertThat(walkOrder(got.get(i - 1), got.get(i)))
                    .as(got.get(i - 1) + " then " + got.get(i))
                    .isNegative();
        }
        // what was there before and after, untouched in between, comes exactly once
        for (String p : before) {
            if (after.contains(p) && changed.stream().noneMatch(c -> p.startsWith(rel(c)))) {
                assertThat(got).as(p).contains(p);
            }
        }
    }

    static String rel(Path p) {
        return root.relativize(p).toString();
    }

    /** Adds or removes a random entry somewhere (a removed directory goes with its tree). */
    static void mutate(Random rnd, List<Path> changed) throws IOException {
        List<Path> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(p -> !p.equals(root)).forEach(all::add);
        }
        if (!all.isEmpty() && rnd.nextBoolean()) {
            Path victim = all.get(rnd.nextInt(all.size()));
            changed.add(victim);
            wipe(victim);
        } else {
            Path dir = root;
            for (Path p : all) {
                if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS) && rnd.nextInt(3) == 0) {
                    dir = p;
                }
            }
            Path fresh = dir.resolve(randomName(rnd) + "n");
            if (!Files.exists(fresh, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                changed.add(fresh);
                Files.writeString(fresh, "new");
            }
        }
    }

    /** Depth-first order on a/b/c paths: segment by segment, each byte-wise. */
    static int walkOrder(String a, String b) {
        String[] x = a.split("/");
        String[] y = b.split("/");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = java.util.Arrays.compareUnsigned(
                    x[i].getBytes(StandardCharsets.UTF_8), y[i].getBytes(StandardCharsets.UTF_8));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }

    @Property(tries = 1)
    void badArgumentsAreRefused() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        assertThatThrownBy(() -> TreeListing.open(sandbox, "f".getBytes(), 1, 1, null))
                .isInstanceOf(SandboxException.class)
                .hasMessageContaining("not a directory");
        assertThatThrownBy(() -> TreeListing.open(sandbox, "".getBytes(), 0, 1, null))
                .hasMessageContaining("depth");
        assertThatThrownBy(() -> TreeListing.open(sandbox, "".getBytes(), 1, TreeListing.MAX_LIMIT + 1, null))
                .hasMessageContaining("limit");
        for (String bad : new String[] {"", "p1", "p2.YQ", "p1.!!", "p1.", "p1.Li4", "p1.YS8vYg", "p1.AA"}) {
            assertThatThrownBy(() -> ListCursor.decode(bad)).as(bad).hasMessageContaining("cursor");
        }
    }
}
