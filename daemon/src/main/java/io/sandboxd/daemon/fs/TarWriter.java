package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Streams a directory tree as a tar archive (runtime-contract §4.3) while it walks it: nothing is
 * staged, and memory is one copy buffer and the names of the directories the walk stands in
 * (iterative, {@link DirectoryPath}: no descriptor per level, a directory moved away mid-walk
 * stops the walk). The top directory is entry {@code ./}; then every file, directory and
 * symlink (as a symlink, target as stored; never followed) in the order the filesystem gives;
 * FIFOs, sockets, devices and in-flight uploads are left out. Names are bytes: GNU long names
 * carry those over 100 bytes unchanged, and ISO-8859-1 maps each byte to one char for Commons.
 * Numbers beyond the header's fields (files over 8 GiB) get PAX records.
 */
final class TarWriter {
    private static final int BUFFER = 128 * 1024;

    private final byte[] buffer = new byte[BUFFER];
    /** read(2) fills this and each read copies only what it got to {@link #buffer} (see {@link Posix.C#write}). */
    private final Memory nativeBuffer = new Memory(BUFFER);

    private final long address = Pointer.nativeValue(nativeBuffer);

    /** @return the number of entries written */
    @SuppressWarnings("deprecation") // the builder is 1.29+
    long write(int dirFd, OutputStream out) throws IOException, PathException {
        TarArchiveOutputStream tar = new TarArchiveOutputStream(out, "ISO-8859-1");
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_GNU);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        long count = 0;
        try (DirectoryReader reader = new DirectoryReader()) {
            DirectoryPath path = new DirectoryPath();
            List<Name> names = new ArrayList<>();
            reader.moveTo(DirectoryReader.openSelf(dirFd));
            path.push(reader.fd());
            Posix.Stat top = Posix.stat(reader.fd());
            tar.putArchiveEntry(directoryEntry("./", top));
            tar.closeArchiveEntry();
            count++;
            while (true) {
                if (!reader.next()) {
                    if (path.depth() == 0) {
                        break;
                    }
                    reader.moveTo(path.climb(reader.fd()));
                    reader.seek(path.resumeOffset());
                    names.remove(names.size() - 1);
                    continue;
                }
                Name name = reader.name();
                if (name.startsWith(UserPath.TEMP_PREFIX_BYTES)) {
                    continue;
                }
                Posix.Stat st;
                try {
                    st = Posix.statAt(reader.fd(), name);
                } catch (LastErrorException e) {
                    continue; // gone since it was listed
                }
                String entryName = entryName(names, name);
                EntryType type = EntryType.of(st.mode());
                switch (type) {
                    case DIRECTORY -> {
                        int child;
                        try {
                            child = DirectoryReader.openChild(reader.fd(), name);
                        } catch (LastErrorException e) {
                            continue; // gone or replaced since it was listed
                        }
                        tar.putArchiveEntry(directoryEntry(entryName + "/", st));
                        tar.closeArchiveEntry();
                        count++;
                        path.setResumeOffset(reader.offset());
                        reader.moveTo(child);
                        path.push(child);
                        names.add(name);
                    }
                    case FILE -> {
                        if (file(tar, reader.fd(), name, entryName)) {
                            count++;
                        }
                    }
                    case SYMLINK -> {
                        byte[] target = Posix.readlinkat(reader.fd(), name);
                        if (target != null) {
                            TarArchiveEntry e = anonymous(new TarArchiveEntry(entryName, TarConstants.LF_SYMLINK));
                            e.setLinkName(new String(target, StandardCharsets.ISO_8859_1));
                            e.setMode(0120777);
                            e.setLastModifiedTime(mtime(st));
                            tar.putArchiveEntry(e);
                            tar.closeArchiveEntry();
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
        tar.finish();
        out.flush();
        return count;
    }

    /**
     * One regular file: the size of the descriptor opened is the size in the header, and exactly
     * that many bytes follow (zeros if it shrank meanwhile, as GNU tar does; the rest if it grew).
     *
     * @return false when the file went away before it could be opened
     */
    private boolean file(TarArchiveOutputStream tar, int dirFd, Name name, String entryName) throws IOException {
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
            TarArchiveEntry e = anonymous(new TarArchiveEntry(entryName, TarConstants.LF_NORMAL));
            e.setSize(st.size());
            e.setMode(0100000 | (st.mode() & 07777));
            e.setLastModifiedTime(mtime(st));
            tar.putArchiveEntry(e);
            long left = st.size();
            while (left > 0) {
                long n;
                try {
                    n = Posix.C.read(fd, address, Math.min(buffer.length, left));
                } catch (LastErrorException x) {
                    throw new IOException("reading \"" + entryName + "\" failed (errno " + x.getErrorCode() + ")");
                }
                if (n <= 0) {
                    java.util.Arrays.fill(buffer, (byte) 0);
                    n = Math.min(buffer.length, left);
                } else {
                    nativeBuffer.read(0, buffer, 0, (int) n);
                }
                tar.write(buffer, 0, (int) n);
                left -= n;
            }
            tar.closeArchiveEntry();
            return true;
        } catch (LastErrorException e) {
            return false;
        } finally {
            Posix.closeQuietly(fd);
        }
    }

    private static TarArchiveEntry directoryEntry(String name, Posix.Stat st) {
        TarArchiveEntry e = anonymous(new TarArchiveEntry(name, TarConstants.LF_DIR));
        e.setMode(0040000 | (st.mode() & 07777));
        e.setLastModifiedTime(mtime(st));
        return e;
    }

    /**
     * Owners are left out (uid/gid 0, no names; Commons would put the daemon's user name): an
     * upload gives everything to the API's file owner anyway.
     */
    private static TarArchiveEntry anonymous(TarArchiveEntry e) {
        e.setUserName("");
        e.setGroupName("");
        return e;
    }

    /**
     * Whole seconds, as the header holds them: a fraction made Commons add a PAX header of 1 KiB
     * to every entry (in {@code BIGNUMBER_POSIX} mode), which tripled a small file's share of
     * the archive and was the largest cost of a download.
     */
    private static FileTime mtime(Posix.Stat st) {
        return FileTime.from(Instant.ofEpochSecond(st.mtimeSeconds()));
    }

    /** The entry's path as Commons wants it: each byte one ISO-8859-1 char. */
    private static String entryName(List<Name> dirs, Name name) {
        StringBuilder sb = new StringBuilder();
        for (Name d : dirs) {
            sb.append(new String(d.bytes(), StandardCharsets.ISO_8859_1)).append('/');
        }
        return sb.append(new String(name.bytes(), StandardCharsets.ISO_8859_1)).toString();
    }
}
