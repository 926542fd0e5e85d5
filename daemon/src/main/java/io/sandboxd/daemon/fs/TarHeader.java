package io.sandboxd.daemon.fs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.archivers.tar.TarUtils;

/**
 * The header records of one download entry (runtime-contract §4.3), exactly as Commons
 * Compress's {@link TarArchiveOutputStream} writes them (GNU long names, PAX records for numbers
 * beyond the header's fields, owners 0 and nameless). The common entry (name and link under 100
 * bytes, size and mtime within the octal fields) is one ustar record formatted here straight
 * from the name's bytes with Commons' own field formatters: going through Commons' stream cost,
 * per entry, a charset encoder for each of five names, two system-property lookups, and one
 * write per 512-byte record, which together were most of a 10,000-file download's CPU time.
 * Any other entry is handed to Commons' stream as a whole.
 */
final class TarHeader {
    static final int RECORD = TarConstants.DEFAULT_RCDSIZE;

    private static final int MODE = TarConstants.NAMELEN;
    private static final int UID = MODE + TarConstants.MODELEN;
    private static final int GID = UID + TarConstants.UIDLEN;
    private static final int SIZE = GID + TarConstants.GIDLEN;
    private static final int MTIME = SIZE + TarConstants.SIZELEN;
    private static final int CHECKSUM = MTIME + TarConstants.MODTIMELEN;
    private static final int TYPE = CHECKSUM + TarConstants.CHKSUMLEN;
    private static final int LINK = TYPE + 1;
    private static final int MAGIC = LINK + TarConstants.NAMELEN;
    private static final int VERSION = MAGIC + TarConstants.MAGICLEN;
    private static final int DEV_MAJOR =
            VERSION + TarConstants.VERSIONLEN + TarConstants.UNAMELEN + TarConstants.GNAMELEN;
    private static final int DEV_MINOR = DEV_MAJOR + TarConstants.DEVLEN;
    private static final byte[] MAGIC_VERSION =
            (TarConstants.MAGIC_POSIX + TarConstants.VERSION_POSIX).getBytes(StandardCharsets.US_ASCII);

    private TarHeader() {}

    /**
     * The header records of an entry.
     *
     * @param record a {@link #RECORD}-byte array the plain ustar header is written into
     * @param name the entry's name, {@code nameLength} bytes of it (a directory's ends with {@code /})
     * @param link a symlink's target, else null
     * @return {@code record} when one ustar record holds the entry, else a new array of all its
     *     header records (a multiple of {@link #RECORD} bytes; a few records plus the long names)
     */
    static byte[] of(
            byte[] record, byte[] name, int nameLength, byte type, int mode, long size, long mtime, byte[] link) {
        if (nameLength < TarConstants.NAMELEN
                && (link == null || link.length < TarConstants.NAMELEN)
                && size >= 0
                && size <= TarConstants.MAXSIZE
                && mtime >= 0
                && mtime <= TarConstants.MAXSIZE) {
            ustar(record, name, nameLength, type, mode, size, mtime, link);
            return record;
        }
        return viaCommons(name, nameLength, type, mode, size, mtime, link);
    }

    private static void ustar(
            byte[] out, byte[] name, int nameLength, byte type, int mode, long size, long mtime, byte[] link) {
        Arrays.fill(out, 0, RECORD, (byte) 0);
        System.arraycopy(name, 0, out, 0, nameLength);
        TarUtils.formatLongOctalOrBinaryBytes(mode, out, MODE, TarConstants.MODELEN);
        TarUtils.formatLongOctalOrBinaryBytes(0, out, UID, TarConstants.UIDLEN);
        TarUtils.formatLongOctalOrBinaryBytes(0, out, GID, TarConstants.GIDLEN);
        TarUtils.formatLongOctalOrBinaryBytes(size, out, SIZE, TarConstants.SIZELEN);
        TarUtils.formatLongOctalOrBinaryBytes(mtime, out, MTIME, TarConstants.MODTIMELEN);
        Arrays.fill(out, CHECKSUM, CHECKSUM + TarConstants.CHKSUMLEN, (byte) ' ');
        out[TYPE] = type;
        if (link != null) {
            System.arraycopy(link, 0, out, LINK, link.length);
        }
        System.arraycopy(MAGIC_VERSION, 0, out, MAGIC, MAGIC_VERSION.length);
        TarUtils.formatLongOctalOrBinaryBytes(0, out, DEV_MAJOR, TarConstants.DEVLEN);
        TarUtils.formatLongOctalOrBinaryBytes(0, out, DEV_MINOR, TarConstants.DEVLEN);
        long checksum = 0;
        for (int i = 0; i < RECORD; i++) {
            checksum += out[i] & 0xff;
        }
        TarUtils.formatCheckSumOctalBytes(checksum, out, CHECKSUM, TarConstants.CHKSUMLEN);
    }

    /** Names as ISO-8859-1 text: each byte one char, so Commons writes the very bytes back. */
    @SuppressWarnings("deprecation") // the builder is 1.29+
    static byte[] viaCommons(byte[] name, int nameLength, byte type, int mode, long size, long mtime, byte[] link) {
        ByteArrayOutputStream records = new ByteArrayOutputStream();
        TarArchiveOutputStream tar = new TarArchiveOutputStream(records, "ISO-8859-1");
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_GNU);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        TarArchiveEntry e = new TarArchiveEntry(new String(name, 0, nameLength, StandardCharsets.ISO_8859_1), type);
        e.setUserName("");
        e.setGroupName("");
        e.setMode(mode);
        e.setSize(size);
        e.setLastModifiedTime(FileTime.from(Instant.ofEpochSecond(mtime)));
        if (link != null) {
            e.setLinkName(new String(link, StandardCharsets.ISO_8859_1));
        }
        try {
            // written record by record: once the entry is put, its header records are all out
            tar.putArchiveEntry(e);
        } catch (IOException x) {
            throw new UncheckedIOException(x); // a ByteArrayOutputStream does not fail
        }
        return records.toByteArray();
    }
}
