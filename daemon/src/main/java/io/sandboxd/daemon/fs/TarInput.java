package io.sandboxd.daemon.fs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarUtils;

/**
 * Commons Compress's tar reader, with every name as the exact bytes the archive holds: Commons
 * turns names into text (and strips a leading {@code /} from long and PAX names, which would
 * hide an absolute name), so this reader keeps the raw header records ({@link #readRecord}) and
 * the raw data of the special entries before each entry ({@link #read}: GNU long names, PAX
 * records) and takes the name from them: a PAX {@code path}/{@code linkpath} first, then a GNU
 * long name, then the header's own (ustar prefix included). Special entries over
 * {@link #MAX_SPECIAL_HEADER} bytes are refused before anything reads them into memory.
 */
final class TarInput extends TarArchiveInputStream {
    static final int MAX_SPECIAL_HEADER = 1024 * 1024;

    private static final int NAME = 0;
    private static final int NAME_LEN = 100;
    private static final int SIZE = 124;
    private static final int TYPE = 156;
    private static final int LINK = 157;
    private static final int MAGIC = 257;
    private static final int PREFIX = 345;
    private static final int PREFIX_LEN = 155;
    private static final byte[] USTAR = {'u', 's', 't', 'a', 'r', 0};

    /** One entry with its names as bytes. */
    record Item(TarArchiveEntry entry, byte[] name, byte[] linkName) {}

    private byte[] header;
    private byte[] paxPath;
    private byte[] paxLinkPath;
    private byte[] longName;
    private byte[] longLink;
    /** The data of the special entry being read, or null when the current entry is a real one. */
    private ByteArrayOutputStream special;

    private byte specialType;

    @SuppressWarnings("deprecation") // the builder is 1.29+
    TarInput(InputStream in) {
        super(in, "ISO-8859-1");
    }

    @Override
    protected byte[] readRecord() throws IOException {
        endSpecial();
        byte[] r = super.readRecord();
        if (r == null || isEOFRecord(r)) {
            return r;
        }
        byte type = r[TYPE];
        if (type == 'x' || type == 'g' || type == 'X' || type == 'L' || type == 'K') {
            long size = TarUtils.parseOctalOrBinary(r, SIZE, 12);
            if (size > MAX_SPECIAL_HEADER) {
                throw new RefusedWhileReading(
                        "a PAX or long-name header of " + size + " bytes (at most " + MAX_SPECIAL_HEADER + ")");
            }
            special = new ByteArrayOutputStream((int) size);
            specialType = type;
        } else {
            header = r.clone();
        }
        return r;
    }

    @Override
    public int read(byte[] buf, int offset, int len) throws IOException {
        int n = super.read(buf, offset, len);
        if (n > 0 && special != null) {
            special.write(buf, offset, n);
        }
        return n;
    }

    /** A special entry's data is complete when the next record is read: keep what it said. */
    private void endSpecial() {
        if (special == null) {
            return;
        }
        byte[] data = special.toByteArray();
        special = null;
        switch (specialType) {
            case 'L' -> longName = trimNul(data);
            case 'K' -> longLink = trimNul(data);
            case 'x', 'X' -> {
                byte[] p = PaxRecords.value(data, "path");
                byte[] l = PaxRecords.value(data, "linkpath");
                paxPath = p != null ? p : paxPath;
                paxLinkPath = l != null ? l : paxLinkPath;
            }
            default -> {
                // a global PAX header: a path in it would name every entry alike; names come from each entry
            }
        }
    }

    /** The next entry, null at the end. */
    Item nextItem() throws IOException {
        header = null;
        paxPath = paxLinkPath = longName = longLink = null;
        TarArchiveEntry e = getNextEntry();
        if (e == null) {
            return null;
        }
        byte[] name = paxPath != null ? paxPath : longName != null ? longName : headerName(header);
        byte[] link = null;
        if (e.isSymbolicLink() || e.isLink()) {
            link = paxLinkPath != null ? paxLinkPath : longLink != null ? longLink : field(header, LINK, NAME_LEN);
        }
        return new Item(e, trimSlash(name), link);
    }

    /** name, or prefix/name in a POSIX ustar header; NUL-terminated fields. */
    private static byte[] headerName(byte[] h) {
        byte[] name = field(h, NAME, NAME_LEN);
        if (!Arrays.equals(h, MAGIC, MAGIC + USTAR.length, USTAR, 0, USTAR.length)) {
            return name;
        }
        byte[] prefix = field(h, PREFIX, PREFIX_LEN);
        if (prefix.length == 0) {
            return name;
        }
        byte[] joined = Arrays.copyOf(prefix, prefix.length + 1 + name.length);
        joined[prefix.length] = '/';
        System.arraycopy(name, 0, joined, prefix.length + 1, name.length);
        return joined;
    }

    /** Without trailing slashes (directories have one), but {@code /} itself stays (an absolute name). */
    private static byte[] trimSlash(byte[] b) {
        int n = b.length;
        while (n > 1 && b[n - 1] == '/') {
            n--;
        }
        return n == b.length ? b : Arrays.copyOf(b, n);
    }

    private static byte[] trimNul(byte[] b) {
        int n = b.length;
        while (n > 0 && b[n - 1] == 0) {
            n--;
        }
        return n == b.length ? b : Arrays.copyOf(b, n);
    }

    private static byte[] field(byte[] h, int at, int len) {
        int end = at;
        while (end < at + len && h[end] != 0) {
            end++;
        }
        return Arrays.copyOfRange(h, at, end);
    }

    /** A refusal found inside Commons' reading, carried out of it as an IOException. */
    static final class RefusedWhileReading extends IOException {
        RefusedWhileReading(String message) {
            super(message);
        }
    }
}
