package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a download's tar holds per entry (runtime-contract §4.3: mtimes in seconds): one 512-byte
 * header and the content, no PAX header even when the files' mtimes have fractions of a second.
 */
class TarWriterTest {
    @TempDir
    Path dir;

    @Test
    void entriesCarryWholeSecondMtimesAndNoPaxHeaders() throws Exception {
        Instant t = Instant.ofEpochSecond(1_700_000_000L, 123_456_789);
        Files.createDirectory(dir.resolve("d"));
        for (String f : List.of("a.txt", "d/b.txt")) {
            Files.write(dir.resolve(f), new byte[] {1, 2, 3});
            Files.setLastModifiedTime(dir.resolve(f), FileTime.from(t));
        }
        Files.createSymbolicLink(dir.resolve("link"), Path.of("a.txt"));
        Files.setLastModifiedTime(dir.resolve("d"), FileTime.from(t));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int fd = Posix.openat(-100, dir.toString(), Posix.O_PATH | Posix.O_DIRECTORY);
        long count;
        try {
            count = new TarWriter().write(fd, out);
        } finally {
            Posix.closeQuietly(fd);
        }

        byte[] tar = out.toByteArray();
        List<String> names = new ArrayList<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(new ByteArrayInputStream(tar))) {
            for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                names.add(e.getName());
                assertThat(e.getExtraPaxHeaders()).as(e.getName()).isEmpty();
                assertThat(e.getLastModifiedTime().toInstant().getNano())
                        .as(e.getName())
                        .isZero();
                if (e.getName().endsWith(".txt") || e.getName().equals("d/")) {
                    assertThat(e.getLastModifiedTime().toInstant())
                            .as(e.getName())
                            .isEqualTo(Instant.ofEpochSecond(1_700_000_000L));
                }
            }
        }
        assertThat(names).containsExactlyInAnyOrder("./", "a.txt", "d/", "d/b.txt", "link");
        assertThat(count).isEqualTo(5);
        assertThat(countTypeflag(tar, (byte) 'x')).isZero();
    }

    /**
     * The whole archive is, byte for byte, what Commons Compress's tar stream writes for the same
     * entries in the same order (each entry as read back from the archive, content and all):
     * long names and link targets, names that are not UTF-8, sizes on both sides of a record,
     * empty and nested directories, the two zero records at the end.
     */
    @Test
    @SuppressWarnings("deprecation") // the builders are 1.29+
    void archiveIsWhatCommonsWritesForTheSameEntries() throws Exception {
        Path nested = Files.createDirectories(dir.resolve("a/b/" + "c".repeat(90)));
        Files.createDirectories(dir.resolve("empty"));
        for (int size : new int[] {0, 1, 511, 512, 513, 100_000}) {
            byte[] content = new byte[size];
            java.util.Arrays.fill(content, (byte) size);
            Files.write(dir.resolve("a/s" + size), content);
            Files.write(nested.resolve("f" + size), content);
        }
        Files.write(dir.resolve("L".repeat(150)), new byte[] {7});
        Files.createSymbolicLink(dir.resolve("a/long-link"), Path.of("t".repeat(120)));
        Files.createSymbolicLink(dir.resolve("a/short-link"), Path.of("s0"));
        int dirFd = Posix.openat(-100, dir.resolve("a").toString(), Posix.O_PATH | Posix.O_DIRECTORY);
        try { // a name that is not UTF-8, made from its bytes
            Posix.closeQuietly(Posix.openat(
                    dirFd, Name.of(new byte[] {'r', (byte) 0xff, (byte) 0xfe}), Posix.O_WRONLY | Posix.O_CREAT, 0644));
        } finally {
            Posix.closeQuietly(dirFd);
        }
        byte[] tar = write(dir);

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (TarArchiveInputStream in = new TarArchiveInputStream(new ByteArrayInputStream(tar), "ISO-8859-1");
                TarArchiveOutputStream out = new TarArchiveOutputStream(expected, "ISO-8859-1")) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_GNU);
            out.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                TarArchiveEntry copy = new TarArchiveEntry(e.getName(), e.getLinkFlag());
                copy.setUserName("");
                copy.setGroupName("");
                copy.setMode(e.getMode());
                copy.setSize(e.getSize());
                copy.setLastModifiedTime(e.getLastModifiedTime());
                if (e.isSymbolicLink()) {
                    copy.setLinkName(e.getLinkName());
                }
                out.putArchiveEntry(copy);
                in.transferTo(out);
                out.closeArchiveEntry();
            }
            out.finish();
        }
        assertThat(java.util.Arrays.mismatch(tar, expected.toByteArray()))
                .as("first byte that differs from Commons' (lengths %d, %d)", tar.length, expected.size())
                .isEqualTo(-1);
    }

    private static byte[] write(Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int fd = Posix.openat(-100, dir.toString(), Posix.O_PATH | Posix.O_DIRECTORY);
        try {
            new TarWriter().write(fd, out);
        } finally {
            Posix.closeQuietly(fd);
        }
        return out.toByteArray();
    }

    /** Type flags of the header records, found by walking the headers and the content they announce. */
    private static int countTypeflag(byte[] tar, byte flag) {
        int n = 0;
        for (int at = 0; at + 512 <= tar.length && tar[at] != 0; ) {
            if (tar[at + 156] == flag) {
                n++;
            }
            String octal = new String(tar, at + 124, 11, java.nio.charset.StandardCharsets.US_ASCII).trim();
            long size = octal.isEmpty() ? 0 : Long.parseLong(octal, 8);
            at += 512 + (int) ((size + 511) / 512 * 512);
        }
        return n;
    }
}
