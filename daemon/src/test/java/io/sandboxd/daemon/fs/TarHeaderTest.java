package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * A download's header records are, byte for byte, what Commons Compress's tar stream writes for
 * the same entry (the format runtime-contract §4.3 describes: ustar, GNU long names, PAX records
 * for big numbers, owners 0 and nameless), on both sides of every limit of the plain header.
 */
class TarHeaderTest {
    record Entry(byte[] name, byte type, int mode, long size, long mtime, byte[] link) {}

    @Property(tries = 3000)
    void headersAreWhatCommonsWrites(@ForAll("entries") Entry e) throws Exception {
        byte[] record = new byte[TarHeader.RECORD];
        java.util.Arrays.fill(record, (byte) 0x5a); // whatever the last header left there
        byte[] got = TarHeader.of(record, e.name(), e.name().length, e.type(), e.mode(), e.size(), e.mtime(), e.link());
        byte[] expected = commons(e);
        assertThat(java.util.Arrays.mismatch(got, expected))
                .as("first byte that differs from Commons' (lengths %d, %d)", got.length, expected.length)
                .isEqualTo(-1);
    }

    /** The reference: Commons' stream as the download used it before, the header records it writes for the entry. */
    @SuppressWarnings("deprecation")
    private static byte[] commons(Entry e) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarArchiveOutputStream tar = new TarArchiveOutputStream(out, "ISO-8859-1");
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_GNU);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        TarArchiveEntry t = new TarArchiveEntry(new String(e.name(), StandardCharsets.ISO_8859_1), e.type());
        t.setUserName("");
        t.setGroupName("");
        t.setMode(e.mode());
        t.setSize(e.size());
        t.setLastModifiedTime(FileTime.from(Instant.ofEpochSecond(e.mtime())));
        if (e.link() != null) {
            t.setLinkName(new String(e.link(), StandardCharsets.ISO_8859_1));
        }
        tar.putArchiveEntry(t);
        return out.toByteArray();
    }

    @Provide
    Arbitrary<Entry> entries() {
        // names around the 100-byte field, any byte but NUL and '/' (one segment stands for all)
        Arbitrary<byte[]> name = Arbitraries.integers().between(1, 240).flatMap(n -> Arbitraries.bytes()
                .filter(b -> b != 0 && b != '/')
                .array(byte[].class)
                .ofSize(n));
        Arbitrary<byte[]> nearLimit =
                Arbitraries.integers().between(97, 102).map(n -> "n".repeat(n).getBytes(StandardCharsets.US_ASCII));
        Arbitrary<Long> size = Arbitraries.oneOf(
                Arbitraries.longs().between(0, 1 << 20),
                Arbitraries.of(0L, 511L, 512L, TarConstants.MAXSIZE, TarConstants.MAXSIZE + 1, 20L << 30));
        Arbitrary<Long> mtime = Arbitraries.oneOf(
                Arbitraries.longs().between(0, 4_000_000_000L),
                Arbitraries.of(-1L, -86_400L, 0L, TarConstants.MAXSIZE, TarConstants.MAXSIZE + 1));
        Arbitrary<Integer> perm = Arbitraries.integers().between(0, 07777);
        Arbitrary<Entry> file = Combinators.combine(Arbitraries.oneOf(name, nearLimit), perm, size, mtime)
                .as((n, p, s, t) -> new Entry(n, TarConstants.LF_NORMAL, 0100000 | p, s, t, null));
        Arbitrary<Entry> dir = Combinators.combine(Arbitraries.oneOf(name, nearLimit), perm, mtime)
                .as((n, p, t) -> new Entry(slash(n), TarConstants.LF_DIR, 0040000 | p, 0, t, null));
        Arbitrary<Entry> link = Combinators.combine(
                        Arbitraries.oneOf(name, nearLimit), Arbitraries.oneOf(name, nearLimit), mtime)
                .as((n, target, t) -> new Entry(n, TarConstants.LF_SYMLINK, 0120777, 0, t, target));
        return Arbitraries.oneOf(file, dir, link);
    }

    private static byte[] slash(byte[] n) {
        byte[] d = java.util.Arrays.copyOf(n, n.length + 1);
        d[n.length] = '/';
        return d;
    }
}
