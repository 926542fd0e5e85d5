package io.sandboxd.daemon.rest;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.DirectBuffers;
import io.sandboxd.daemon.fs.EntryStat;
import io.sandboxd.daemon.fs.EntryType;
import io.sandboxd.daemon.fs.FileOperations;
import io.sandboxd.daemon.fs.FileStore;
import io.sandboxd.daemon.fs.ListCursor;
import io.sandboxd.daemon.fs.ReadResult;
import io.sandboxd.daemon.fs.SandboxRoot;
import io.sandboxd.daemon.fs.TreeListing;
import io.sandboxd.daemon.fs.watch.EventKind;
import io.sandboxd.daemon.fs.watch.WatchEvent;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.core.JsonGenerator;

/**
 * Issue 21: the REST bodies now come from Jackson's streaming generator; on a corpus of byte names
 * (invalid UTF-8 of every kind, encoded surrogates, U+2028, control characters, quotes, {@code <>&},
 * 255-byte names, and 400 random byte strings) they are byte for byte what the hand-written
 * writers ({@link HandWrittenJson}) produced: listings (well over the generator's 8 KB buffer),
 * deep listings page by page with their cursors, stat of every entry and symlink, and watch events.
 */
class JsonBodiesTest {
    /** libc with byte paths: the test makes names the JDK could not spell. */
    static final class Libc {
        static {
            Native.register("c");
        }

        static native int open(byte[] path, int flags, int mode) throws LastErrorException;

        static native long write(int fd, byte[] buf, long n) throws LastErrorException;

        static native int close(int fd) throws LastErrorException;

        static native int mkdir(byte[] path, int mode) throws LastErrorException;

        static native int symlink(byte[] target, byte[] path) throws LastErrorException;
    }

    @TempDir
    static Path root;

    static final byte[] DIR = b("corpus\u00ff&<\n\"");
    static final byte[] SUB = b("sub\u00c0\u00af");
    static final List<byte[]> NAMES = new ArrayList<>();
    static FileStore store;
    static FileOperations ops;

    @BeforeAll
    static void corpus() throws Exception {
        Set<String> names = new LinkedHashSet<>(List.of(
                "\u00ff",
                "\u00fe\u00ff",
                "\u0080",
                "\u00c0\u00af", // overlong '/'
                "\u00ed\u00a0\u0080", // an encoded lone surrogate
                "\u00ed\u00a0\u00bd\u00ed\u00b8\u0080", // an encoded surrogate pair (CESU-8)
                "\u00f4\u0090\u0080\u0080", // above U+10FFFF
                "\u00f0\u009f\u0098\u0080", // U+1F600, valid
                "\u00f0\u009f\u0098", // truncated
                "\u00e2\u0080\u00a8", // U+2028, valid
                "\u00e2\u0080\u00a9",
                "\u00c3\u00a9", // é, valid
                "\u00e9", // é in Latin-1: invalid
                "\u00c3",
                "a\nb",
                "a\rb",
                "tab\t",
                "\u0001\u0002\u001f",
                "\b\f",
                "\u007f",
                "\"quoted\"",
                "back\\slash",
                "<script>&amp;",
                "100%",
                "%FF",
                "sp ace",
                ".hidden",
                "\u00ff".repeat(255),
                "a".repeat(255)));
        Random random = new Random(21);
        while (names.size() < 430) {
            int length = random.nextInt(10) == 0 ? 255 : 1 + random.nextInt(40);
            StringBuilder n = new StringBuilder();
            for (int i = 0; i < length; i++) {
                int c = random.nextInt(3) == 0 ? 1 + random.nextInt(0x7f) : 1 + random.nextInt(255);
                n.append((char) (c == '/' ? '%' : c));
            }
            String s = n.toString();
            if (!s.equals(".") && !s.equals("..") && !s.startsWith(".sandboxd-upload-")) {
                names.add(s);
            }
        }
        byte[] dir = path(root, DIR);
        Libc.mkdir(z(dir), 0755);
        Libc.mkdir(z(path(dir, SUB)), 0750);
        for (String s : names) {
            byte[] name = b(s);
            NAMES.add(name);
            create(path(dir, name), name);
            if (NAMES.size() <= 40) {
                create(path(path(dir, SUB), name), new byte[0]);
            }
        }
        Libc.symlink(z(b("\u00ff/x")), z(path(dir, b("dangling\u00fe"))));
        Libc.symlink(z(SUB), z(path(dir, b("to-sub"))));
        Libc.symlink(z(b("../../../../etc")), z(path(dir, b("outside\u00ff"))));
        NAMES.addAll(List.of(b("dangling\u00fe"), b("to-sub"), b("outside\u00ff"), SUB));
        SandboxRoot sandbox = new SandboxRoot(root);
        store = new FileStore(sandbox, new DirectBuffers(4096, 1));
        ops = new FileOperations(sandbox);
    }

    @Test
    void listingsAreTheBytesTheHandWrittenWriterMade() throws Exception {
        for (byte[] dir : List.of(DIR, path(DIR, SUB), b("/"), b("/corpus\u00ff&<\n\""))) {
            ByteArrayOutputStream now = new ByteArrayOutputStream();
            try (var l = ((ReadResult.Directory) store.read(dir)).listing()) {
                ListingJson.write(dir, l, now);
            }
            byte[] before;
            try (var l = ((ReadResult.Directory) store.read(dir)).listing()) {
                before = HandWrittenJson.listing(dir, l);
            }
            assertSame(now.toByteArray(), before);
        }
    }

    @Test
    void theLargeListingReallyCrossesTheGeneratorsBuffer() throws Exception {
        ByteArrayOutputStream now = new ByteArrayOutputStream();
        try (var l = ((ReadResult.Directory) store.read(DIR)).listing()) {
            ListingJson.write(DIR, l, now);
        }
        assertThat(now.size()).isGreaterThan(8 * 8000);
        assertThat(now.toString(StandardCharsets.UTF_8)).contains("\"name_encoded\":\"%FF\"");
    }

    @Test
    void deepListingPagesAreTheBytesTheHandWrittenWriterMade() throws Exception {
        for (int limit : new int[] {TreeListing.MAX_LIMIT, 7}) {
            ListCursor after = null;
            int pages = 0;
            do {
                ByteArrayOutputStream now = new ByteArrayOutputStream();
                ListCursor next;
                try (TreeListing l = ops.list(DIR, 3, limit, after)) {
                    TreeListingJson.write(l, now);
                    next = l.next();
                }
                byte[] before;
                try (TreeListing l = ops.list(DIR, 3, limit, after)) {
                    before = HandWrittenJson.tree(l);
                }
                assertSame(now.toByteArray(), before);
                after = next;
                pages++;
            } while (after != null);
            assertThat(pages).isGreaterThanOrEqualTo(limit == 7 ? NAMES.size() / 7 : 1);
        }
    }

    @Test
    void statOfEveryEntryIsTheBytesTheHandWrittenWriterMade() throws Exception {
        int compared = 0;
        for (byte[] name : NAMES) {
            for (boolean follow : new boolean[] {false, true}) {
                byte[] p = path(DIR, name);
                EntryStat now;
                try {
                    now = ops.stat(p, follow);
                } catch (SandboxException e) {
                    continue; // following a dangling or escaping link: an error, not a body
                }
                assertSame(StatJson.of(now), HandWrittenJson.stat(ops.stat(p, follow)));
                compared++;
            }
        }
        assertThat(compared).isGreaterThan(2 * NAMES.size() - 3);
        assertSame(StatJson.of(ops.stat(b("/"), false)), HandWrittenJson.stat(ops.stat(b("/"), false)));
    }

    @Test
    void watchEventsAreTheBytesTheHandWrittenWriterMade() {
        Instant mtime = Instant.ofEpochSecond(1_764_640_000L, 123_456_789);
        List<WatchEvent> events = new ArrayList<>();
        long seq = 1;
        String dir = new String(DIR, ISO_8859_1);
        for (byte[] n : NAMES) {
            String p = dir + "/" + new String(n, ISO_8859_1);
            events.add(new WatchEvent(
                    seq++, EventKind.CREATED, p, null, EntryType.FILE, n.length, mtime, null, null, null));
            events.add(new WatchEvent(
                    seq++, EventKind.MOVED, p, p + "\u00ff", EntryType.DIRECTORY, -1, null, null, null, null));
            events.add(
                    new WatchEvent(seq++, EventKind.DELETED, p, null, EntryType.SYMLINK, -1, null, null, null, null));
        }
        events.add(new WatchEvent(seq++, EventKind.RESYNC, dir, null, null, -1, null, "overflow", null, null));
        events.add(new WatchEvent(
                seq++,
                EventKind.ERROR,
                "",
                null,
                null,
                -1,
                null,
                "limit",
                "too many events: raise --watch-max-events <\"now\">\n\u2028",
                "--watch-max-events"));
        events.add(new WatchEvent(seq, EventKind.ERROR, dir, null, null, -1, null, "shutdown", "bye \u00ff", null));

        ByteArrayOutputStream now = new ByteArrayOutputStream();
        StringBuilder before = new StringBuilder();
        // one generator for the whole stream, as WatchHandler holds it
        try (JsonGenerator g = Json.to(now)) {
            for (WatchEvent e : events) {
                WatchSse.write(g, e);
                before.append(HandWrittenJson.sse(e));
            }
        }
        assertSame(now.toByteArray(), before.toString().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void smallBodiesAreTheBytesTheHandWrittenWriterMade() {
        assertSame(
                Json.error("NOT_FOUND", "no such file: /a\u00ff<b>"),
                HandWrittenJson.error("NOT_FOUND", "no such file: /a\u00ff<b>"));
        assertThat(new String(
                        Json.bytes(g -> {
                            g.writeStartObject();
                            g.writeNumberProperty("entries", 12);
                            g.writeEndObject();
                        }),
                        StandardCharsets.UTF_8))
                .isEqualTo("{\"entries\":12}\n");
    }

    private static void assertSame(byte[] now, byte[] before) {
        // ISO-8859-1 shows every byte, so a difference in the UTF-8 itself shows too
        assertThat(new String(now, ISO_8859_1)).isEqualTo(new String(before, ISO_8859_1));
    }

    private static void create(byte[] path, byte[] content) {
        int fd = Libc.open(z(path), 01 | 0100 | 01000, 0644);
        Libc.write(fd, content, content.length);
        Libc.close(fd);
    }

    private static byte[] b(String oneCharPerByte) {
        return oneCharPerByte.getBytes(ISO_8859_1);
    }

    private static byte[] path(Path dir, byte[] name) {
        return path(dir.toString().getBytes(StandardCharsets.UTF_8), name);
    }

    private static byte[] path(byte[] dir, byte[] name) {
        byte[] p = Arrays.copyOf(dir, dir.length + 1 + name.length);
        p[dir.length] = '/';
        System.arraycopy(name, 0, p, dir.length + 1, name.length);
        return p;
    }

    private static byte[] z(byte[] path) {
        return Arrays.copyOf(path, path.length + 1);
    }
}
