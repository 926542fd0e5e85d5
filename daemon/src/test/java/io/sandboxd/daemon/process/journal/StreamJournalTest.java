package io.sandboxd.daemon.process.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamJournalTest {
    @TempDir
    Path state;

    private static byte[] lines(int from, int to) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < to; i++) {
            b.append("line ").append(i).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Everything from {@code offset} on, gaps recorded as their total. */
    private static long[] readAll(StreamJournal j, long offset, ByteArrayOutputStream out, int max) throws Exception {
        long gaps = 0;
        while (true) {
            ByteBuffer buf = ByteBuffer.allocate(max);
            JournalRead r = j.read(offset, buf, null);
            if (r.kind() == JournalRead.Kind.NONE) {
                return new long[] {offset, gaps};
            }
            if (r.kind() == JournalRead.Kind.GAP) {
                gaps += r.gapLength();
                offset += r.gapLength();
            } else {
                out.write(buf.array(), 0, r.length());
                offset += r.length();
            }
        }
    }

    /** One read of up to {@code max} bytes without a cursor. */
    private static JournalRead read(StreamJournal j, long offset, int max) throws OffsetOutOfRangeException {
        return j.read(offset, ByteBuffer.allocate(max), null);
    }

    @Test
    void replaysByteExactFromAnyOffsetInFilesOnDisk() throws Exception {
        JournalStore store = new JournalStore(state, 1 << 30);
        ProcessJournal pj = store.open(1, 1 << 20);
        byte[] all = lines(0, 20_000);
        Random rnd = new Random(7);
        for (int off = 0; off < all.length; ) {
            int n = Math.min(all.length - off, 1 + rnd.nextInt(9000));
            byte[] lent = new byte[n + 10];
            System.arraycopy(all, off, lent, 3, n);
            pj.stdout().append(lent, 3, n);
            off += n;
        }
        assertEquals(all.length, pj.stdout().written());
        try (Stream<Path> files = Files.list(store.root().resolve("1"))) {
            assertTrue(files.count() > 1, "segment files on disk");
        }
        for (long start : new long[] {0, 1, 4097, all.length - 1, all.length}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long[] end = readAll(pj.stdout(), start, out, 1000 + rnd.nextInt(5000));
            assertEquals(all.length, end[0]);
            assertEquals(0, end[1]);
            assertArrayEquals(java.util.Arrays.copyOfRange(all, (int) start, all.length), out.toByteArray());
        }
        assertEquals(0, pj.stderr().written());
        OffsetOutOfRangeException e =
                assertThrows(OffsetOutOfRangeException.class, () -> read(pj.stdout(), all.length + 1, 10));
        assertTrue(e.getMessage().contains("beyond"));
        assertThrows(OffsetOutOfRangeException.class, () -> read(pj.stdout(), -1, 10));
        pj.delete();
        assertFalse(Files.exists(store.root().resolve("1")));
    }

    @Test
    void aJournalNotYetRecordingOnlyCountsThenGivesOneExactGapAndTheSuffix() throws Exception {
        JournalStore store = new JournalStore(state, 1 << 30);
        ProcessJournal pj = store.open(4, 1 << 20, false);
        byte[] all = lines(0, 5_000);
        int before = all.length / 3;
        pj.stdout().append(all, 0, before);
        assertEquals(before, pj.stdout().written());
        assertFalse(Files.exists(store.root().resolve("4")), "nothing on disk, not even the directory");
        JournalRead g = read(pj.stdout(), 0, 100);
        assertEquals(JournalRead.Kind.GAP, g.kind());
        assertEquals(before, g.gapLength());
        assertEquals(JournalRead.GapCause.NOT_RECORDED, g.cause());
        pj.record();
        pj.stdout().append(all, before, all.length - before);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long[] end = readAll(pj.stdout(), 0, out, 4096);
        assertEquals(all.length, end[0]);
        assertEquals(before, end[1]);
        assertArrayEquals(java.util.Arrays.copyOfRange(all, before, all.length), out.toByteArray());
        JournalRead again = read(pj.stdout(), 0, 100);
        assertEquals(JournalRead.GapCause.NOT_RECORDED, again.cause());
        assertEquals(before, again.gapLength());
        pj.delete();
        assertFalse(Files.exists(store.root().resolve("4")));
    }

    @Test
    void directAppendsAndCursorReadsReplayByteExactAcrossSegments() throws Exception {
        JournalStore store = new JournalStore(state, 1 << 30);
        ProcessJournal pj = store.open(5, 1 << 20); // 128 KiB segments
        byte[] all = lines(0, 60_000);
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(70_000);
        Random rnd = new Random(11);
        for (int off = 0; off < all.length; ) {
            int n = Math.min(all.length - off, 1 + rnd.nextInt(65_000));
            direct.clear().position(5);
            direct.put(all, off, n).flip().position(5);
            pj.stdout().append(direct);
            assertEquals(direct.limit(), direct.position(), "consumed");
            off += n;
        }
        assertEquals(all.length, pj.stdout().written());
        long start = pj.stdout().firstRetained();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocateDirect(50_007); // read into a direct buffer, from position 7
        try (StreamJournal.Cursor c = new StreamJournal.Cursor()) {
            long offset = start;
            while (true) {
                buf.clear().position(7);
                JournalRead r = pj.stdout().read(offset, buf, c);
                if (r.kind() == JournalRead.Kind.NONE) {
                    assertEquals(7, buf.position());
                    assertEquals(buf.capacity(), buf.limit());
                    break;
                }
                assertEquals(JournalRead.Kind.DATA, r.kind());
                assertEquals(7 + r.length(), buf.position());
                byte[] got = new byte[r.length()];
                buf.flip().position(7);
                buf.get(got);
                out.write(got);
                offset += r.length();
            }
        }
        assertArrayEquals(java.util.Arrays.copyOfRange(all, (int) start, all.length), out.toByteArray());
        pj.delete();
    }

    @Test
    void aStreamKeepsOneDescriptorOpenHoweverManySegmentsItRetains() throws Exception {
        JournalStore store = new JournalStore(state, 1 << 30);
        ProcessJournal pj = store.open(3, 1 << 20); // 128 KiB segments
        long before = openFds();
        byte[] chunk = lines(0, 5000);
        for (int i = 0; i < 40; i++) {
            pj.stdout().append(chunk, 0, chunk.length);
        }
        try (Stream<Path> files = Files.list(store.root().resolve("3"))) {
            assertTrue(files.count() >= 5);
        }
        assertTrue(openFds() - before <= 1, "descriptors " + (openFds() - before));
        pj.stdout().seal();
        assertTrue(openFds() - before <= 0, "descriptors after seal " + (openFds() - before));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long first = pj.stdout().firstRetained();
        readAll(pj.stdout(), first, out, 50_000);
        assertEquals(pj.stdout().written() - first, out.size());
        pj.delete();
    }

    private static long openFds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void retentionDropsOldestSegmentsAndReadersGetTheExactGap() throws Exception {
        JournalStore store = new JournalStore(state, 1 << 30);
        long retention = 64 * 1024;
        ProcessJournal pj = store.open(2, retention);
        byte[] all = lines(0, 50_000);
        for (int off = 0; off < all.length; off += 1000) {
            pj.stdout().append(all, off, Math.min(1000, all.length - off));
        }
        StreamJournal j = pj.stdout();
        long first = j.firstRetained();
        assertTrue(all.length - first <= retention, "retained " + (all.length - first));
        assertTrue(all.length - first > retention - retention / 8 - 1, "retained " + (all.length - first));
        assertEquals(first, j.evictedBytes());
        JournalRead gap = read(j, 0, 100);
        assertEquals(JournalRead.Kind.GAP, gap.kind());
        assertEquals(first, gap.gapLength());
        assertEquals(JournalRead.GapCause.RETENTION, gap.cause());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long[] end = readAll(j, 10, out, 4096);
        assertEquals(first - 10, end[1]);
        assertArrayEquals(java.util.Arrays.copyOfRange(all, (int) first, all.length), out.toByteArray());
        assertTrue(store.budget().total() <= retention);
    }

    @Test
    void daemonWideCapDropsTheGloballyOldestBytesFirst() throws Exception {
        JournalStore store = new JournalStore(state, 256 * 1024);
        ProcessJournal a = store.open(1, 1 << 20);
        ProcessJournal b = store.open(2, 1 << 20);
        byte[] chunk = new byte[8192];
        for (int i = 0; i < 32; i++) {
            a.stdout().append(chunk, 0, chunk.length); // 256 KiB: at the cap
        }
        assertEquals(0, a.stdout().evictedBytes());
        for (int i = 0; i < 16; i++) {
            b.stderr().append(chunk, 0, chunk.length);
        }
        assertTrue(
                store.budget().total() <= 256 * 1024, "total " + store.budget().total());
        assertTrue(
                a.stdout().evictedBytes() >= 128 * 1024,
                "a, the oldest, lost " + a.stdout().evictedBytes());
        assertEquals(0, b.stderr().evictedBytes());
        assertEquals(JournalRead.Kind.GAP, read(a.stdout(), 0, 10).kind());
        a.delete();
        b.delete();
        assertEquals(0, store.budget().total());
    }

    @Test
    void storeRemovesWhatAPreviousDaemonLeft() throws Exception {
        Path stale = state.resolve("journal-2147483647-0").resolve("17"); // no such pid
        Files.createDirectories(stale);
        Files.write(stale.resolve("stdout-0.seg"), new byte[100]);
        Path live = state.resolve("journal-1-0").resolve("3"); // pid 1 runs: another daemon's
        Files.createDirectories(live);
        JournalStore store = new JournalStore(state, 1000);
        try (Stream<Path> files = Files.list(store.root())) {
            assertEquals(0, files.count());
        }
        assertFalse(Files.exists(stale.getParent()));
        assertTrue(Files.exists(live));
        store.deleteAll();
        assertFalse(Files.exists(store.root()));
    }

    /** A 1 MiB tmpfs fills up: the journal stops growing, appends never throw, readers see the hole. */
    @Test
    void diskFullStopsTheJournalWithoutFailingTheWriter() throws Exception {
        Path mnt = state.resolve("tmpfs");
        Files.createDirectories(mnt);
        Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt.toString())
                .redirectErrorStream(true)
                .start();
        String why = new String(m.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(m.waitFor() == 0, "cannot mount a tmpfs here (needs root): " + why);
        try {
            JournalStore store = new JournalStore(mnt, 1L << 30);
            ProcessJournal pj = store.open(1, 1L << 30);
            byte[] chunk = lines(0, 1000);
            long total = 0;
            while (total < 3L * 1024 * 1024) {
                pj.stdout().append(chunk, 0, chunk.length);
                total += chunk.length;
            }
            StreamJournal j = pj.stdout();
            assertEquals(total, j.written());
            assertTrue(j.failedBytes() >= 2L * 1024 * 1024, "failed " + j.failedBytes());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long[] end = readAll(j, 0, out, 65536);
            assertEquals(total, end[0]);
            assertEquals(j.failedBytes(), end[1]);
            assertTrue(out.size() > 0 && out.size() <= 1024 * 1024);
            // what was journalled is a byte-exact prefix of the output
            byte[] got = out.toByteArray();
            for (int i = 0; i < got.length; i++) {
                assertEquals(chunk[i % chunk.length], got[i]);
            }
            pj.delete();
        } finally {
            new ProcessBuilder("umount", mnt.toString()).start().waitFor();
        }
    }
}
