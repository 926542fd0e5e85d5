package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A directory's entries (runtime-contract §2.3), sorted byte-wise by name, without {@code .}/{@code ..}
 * and upload temps, delivered one at a time: the names were read and sorted when the listing was
 * made (so errors reading the directory come before any answer), each entry's metadata is read
 * as it is delivered. Memory does not grow with the directory (see {@link NameSorter}).
 */
public final class DirectoryListing implements AutoCloseable {

    /** Receives the entries in order. */
    public interface EntrySink {
        void accept(FileEntry entry) throws IOException;
    }

    private final SandboxRoot root;
    private final int dirFd;
    private final List<Name> dirSegments;
    private final SortedNames names;

    private DirectoryListing(SandboxRoot root, int dirFd, List<Name> dirSegments, SortedNames names) {
        this.root = root;
        this.dirFd = dirFd;
        this.dirSegments = dirSegments;
        this.names = names;
    }

    /** Reads and sorts the names of the resolved directory. */
    static DirectoryListing read(SandboxRoot root, SandboxRoot.Resolved dir) throws SandboxException {
        int fd;
        try {
            fd = DirectoryReader.openSelf(dir.dirFd());
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        }
        boolean ok = false;
        try {
            SortedNames names = sortedNames(root.rootFd(), fd, null, Integer.MAX_VALUE);
            DirectoryListing listing = new DirectoryListing(root, fd, dir.realSegments(), names);
            ok = true;
            return listing;
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        } catch (IOException e) {
            throw FileStore.ioError(e, "cannot list directory");
        } finally {
            if (!ok) {
                Posix.closeQuietly(fd);
            }
        }
    }

    /**
     * The names in a directory, upload temps left out, in byte order.
     *
     * @param dirFd any descriptor of the directory (O_PATH will do); it stays open and unread
     * @param from  names below this one are left out (null: none are)
     * @param keep  only the {@code keep} smallest names are wanted (see {@link NameSorter})
     */
    static SortedNames sortedNames(int rootFd, int dirFd, Name from, int keep) throws LastErrorException, IOException {
        try (DirectoryReader reader = new DirectoryReader();
                NameSorter sorter = new NameSorter(rootFd, keep)) {
            reader.moveTo(DirectoryReader.openSelf(dirFd));
            while (reader.next()) {
                Name name = reader.name();
                if (!name.startsWith(UserPath.TEMP_PREFIX_BYTES) && (from == null || name.compareTo(from) >= 0)) {
                    sorter.add(name);
                }
            }
            return sorter.sorted();
        }
    }

    /** Delivers every entry still there, in name order; entries that vanished, dangle or escape are left out. */
    public void forEach(EntrySink sink) throws IOException {
        for (Name name = names.next(); name != null; name = names.next()) {
            FileEntry e = entry(name);
            if (e != null) {
                sink.accept(e);
            }
        }
    }

    /** @return null for an entry that vanished, dangles or escapes */
    private FileEntry entry(Name name) {
        try {
            Posix.Stat st = Posix.statAt(dirFd, name);
            if (st.type() == Posix.S_IFLNK) {
                st = linkTarget(name);
                if (st == null) {
                    return null;
                }
            }
            return new FileEntry(
                    name,
                    st.size(),
                    st.type() == Posix.S_IFDIR,
                    Instant.ofEpochSecond(st.mtimeSeconds(), st.mtimeNanos()),
                    st.mode() & 0777);
        } catch (LastErrorException | SandboxException e) {
            return null;
        }
    }

    /** What a listed symlink points to, confined like any path; null if it dangles. */
    private Posix.Stat linkTarget(Name name) throws SandboxException, LastErrorException {
        List<Name> segs = new ArrayList<>(dirSegments);
        segs.add(name);
        try (SandboxRoot.Resolved t = root.resolve(new UserPath(segs), SandboxRoot.Mode.FOLLOW)) {
            if (!t.exists()) {
                return null;
            }
            Posix.Stat st = t.isDirectoryTarget() ? Posix.stat(t.dirFd()) : Posix.statAt(t.dirFd(), t.name());
            return st.type() == Posix.S_IFLNK ? null : st;
        } catch (PathException e) {
            return null;
        }
    }

    @Override
    public void close() throws IOException {
        Posix.closeQuietly(dirFd);
        names.close();
    }
}
