package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Streams a directory tree as a tar archive (runtime-contract §4.3) while it walks it: nothing is
 * staged, and memory is one copy buffer, one output buffer ({@link #OUT_BUFFER}) and the names of
 * the directories the walk stands in (iterative, {@link DirectoryPath}: no descriptor per level, a
 * directory moved away mid-walk stops the walk). The top directory is entry {@code ./}; then every
 * file, directory and symlink (as a symlink, target as stored; never followed) in the order the
 * filesystem gives; FIFOs, sockets, devices and in-flight uploads are left out. Names are bytes,
 * written as they are ({@link TarHeader}: GNU long names carry those of 100 bytes and more,
 * numbers beyond the header's fields, files of 8 GiB and more, get PAX records); mtimes are whole
 * seconds and owners 0 and nameless. The archive ends with two zero records.
 */
final class TarWriter {
    private static final int BUFFER = 128 * 1024;
    /**
     * The response's writes take a lock, a callback and more each: records, mostly under a page,
     * gather here first and reach it in writes of this size.
     */
    private static final int OUT_BUFFER = 64 * 1024;

    private static final byte[] ZEROS = new byte[2 * TarHeader.RECORD];

    private final byte[] buffer = new byte[BUFFER];
    /** read(2) fills this and each read copies only what it got to {@link #buffer} (see {@link Posix.C#write}). */
    private final Memory nativeBuffer = new Memory(BUFFER);

    private final long address = Pointer.nativeValue(nativeBuffer);
    private final byte[] record = new byte[TarHeader.RECORD];
    /** The current entry's name: the directories the walk stands in, each with its {@code /}, then the name. */
    private byte[] entryName = new byte[256];

    /** @return the number of entries written */
    long write(int dirFd, OutputStream response) throws IOException, PathException {
        BufferedOutputStream out = new BufferedOutputStream(response, OUT_BUFFER);
        long count = 0;
        try (DirectoryReader reader = new DirectoryReader()) {
            DirectoryPath path = new DirectoryPath();
            // where each directory's name ends in entryName, by depth (the start: none)
            int[] prefixEnds = new int[16];
            int prefix = 0;
            reader.moveTo(DirectoryReader.openSelf(dirFd));
            path.push(reader.fd());
            Posix.Stat top = Posix.stat(reader.fd());
            entryName[0] = '.';
            entryName[1] = '/';
            header(out, 2, TarConstants.LF_DIR, 0040000 | (top.mode() & 07777), 0, top.mtimeSeconds(), null);
            count++;
            while (true) {
                if (!reader.next()) {
                    if (path.depth() == 0) {
                        break;
                    }
                    reader.moveTo(path.climb(reader.fd()));
                    reader.seek(path.resumeOffset());
                    prefix = path.depth() == 0 ? 0 : prefixEnds[path.depth() - 1];
                    continue;
                }
                Name name = reader.name();
                if (name.startsWith(UserPath.TEMP_PREFIX_BYTES)) {
                    continue;
                }
                int nameEnd = append(prefix, name);
                if (reader.type() == DirectoryReader.DT_REG) {
                    // the descriptor's own fstat says the rest: no stat of the name first
                    if (file(out, reader.fd(), name, nameEnd)) {
                        count++;
                    }
                    continue;
                }
                Posix.Stat st;
                try {
                    st = Posix.statAt(reader.fd(), name);
                } catch (LastErrorException e) {
                    continue; // gone since it was listed
                }
                switch (EntryType.of(st.mode())) {
                    case DIRECTORY -> {
                        int child;
                        try {
                            child = DirectoryReader.openChild(reader.fd(), name);
                        } catch (LastErrorException e) {
                            continue; // gone or replaced since it was listed
                        }
                        entryName[nameEnd] = '/';
                        header(
                                out,
                                nameEnd + 1,
                                TarConstants.LF_DIR,
                                0040000 | (st.mode() & 07777),
                                0,
                                st.mtimeSeconds(),
                                null);
                        count++;
                        path.setResumeOffset(reader.offset());
                        reader.moveTo(child);
                        path.push(child);
                        if (path.depth() > prefixEnds.length) {
                            prefixEnds = Arrays.copyOf(prefixEnds, prefixEnds.length * 2);
                        }
                        prefix = nameEnd + 1;
                        prefixEnds[path.depth() - 1] = prefix;
                    }
                    case FILE -> {
                        if (file(out, reader.fd(), name, nameEnd)) {
                            count++;
                        }
                    }
                    case SYMLINK -> {
                        byte[] target = Posix.readlinkat(reader.fd(), name);
                        if (target != null) {
                            header(out, nameEnd, TarConstants.LF_SYMLINK, 0120777, 0, st.mtimeSeconds(), target);
                            count++;
                        }
                    }
                    default -> {
                        // FIFOs, sockets and devices have no place in a workspace archive
                    }
                }
            }
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        } finally {
            nativeBuffer.close();
        }
        out.write(ZEROS); // the end of the archive
        out.flush();
        return count;
    }

    /** Puts {@code name} after the first {@code prefix} bytes of {@link #entryName}; @return where it ends */
    private int append(int prefix, Name name) {
        byte[] b = name.bytes();
        int end = prefix + b.length;
        if (end + 1 > entryName.length) {
            entryName = Arrays.copyOf(entryName, Math.max(2 * entryName.length, end + 1));
        }
        System.arraycopy(b, 0, entryName, prefix, b.length);
        return end;
    }

    private void header(OutputStream out, int nameLength, byte type, int mode, long size, long mtime, byte[] link)
            throws IOException {
        byte[] h = TarHeader.of(record, entryName, nameLength, type, mode, size, mtime, link);
        out.write(h, 0, h.length);
    }

    /**
     * One regular file: the size of the descriptor opened is the size in the header, and exactly
     * that many bytes follow (zeros if it shrank meanwhile, as GNU tar does; the rest if it grew).
     *
     * @return false when the file went away (or is no longer a file) before it could be opened
     */
    private boolean file(OutputStream out, int dirFd, Name name, int nameLength) throws IOException {
        int fd;
        try {
            fd = Posix.openat(dirFd, name, Posix.O_RDONLY | Posix.O_NOFOLLOW | Posix.O_NONBLOCK);
        } catch (LastErrorException e) {
            return false;
        }
        try {
            Posix.Stat st = Posix.stat(fd);
            if (EntryType.of(st.mode()) != EntryType.FILE) {
                return false;
            }
            header(
                    out,
                    nameLength,
                    TarConstants.LF_NORMAL,
                    0100000 | (st.mode() & 07777),
                    st.size(),
                    st.mtimeSeconds(),
                    null);
            long left = st.size();
            while (left > 0) {
                long n;
                try {
                    n = Posix.C.read(fd, address, Math.min(buffer.length, left));
                } catch (LastErrorException x) {
                    throw new IOException("reading \"" + Utf8.lossy(Arrays.copyOf(entryName, nameLength))
                            + "\" failed (errno " + x.getErrorCode() + ")");
                }
                if (n <= 0) {
                    Arrays.fill(buffer, (byte) 0);
                    n = Math.min(buffer.length, left);
                } else {
                    nativeBuffer.read(0, buffer, 0, (int) n);
                }
                out.write(buffer, 0, (int) n);
                left -= n;
            }
            int tail = (int) (st.size() % TarHeader.RECORD);
            if (tail != 0) {
                out.write(ZEROS, 0, TarHeader.RECORD - tail);
            }
            return true;
        } catch (LastErrorException e) {
            return false;
        } finally {
            Posix.closeQuietly(fd);
        }
    }
}
