package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * One page of a deep listing (runtime-contract §4.3): the entries of a directory down to
 * {@code depth} levels, depth-first, each directory's names in byte order and a directory
 * right before its contents, starting strictly after a {@link ListCursor}. Symlinks are listed
 * as themselves and never entered; a directory is entered only through {@code O_NOFOLLOW}.
 *
 * <p>Memory is bounded by the page, not the tree: each open level keeps only the names the
 * page can still use ({@link NameSorter}'s {@code keep}: at most the page size plus two, in
 * memory up to {@link NameSorter#MEMORY_NAMES}, spilled beyond), and holds one descriptor;
 * at most {@link #MAX_DEPTH} levels are open. Entries are described (one {@code statx}) as
 * they are delivered. The first level is read when the listing is opened, so a directory that
 * cannot be listed fails before any answer.
 */
public final class TreeListing implements AutoCloseable {
    public static final int MAX_DEPTH = 32;
    public static final int MAX_LIMIT = 100_000;

    /** Receives the entries in order. */
    public interface EntrySink {
        void accept(TreeEntry entry) throws IOException;
    }

    private final SandboxRoot root;
    private final int depth;
    private final int limit;
    private final List<Name> directory;
    private final Deque<Level> stack = new ArrayDeque<>();
    private int delivered;
    private List<Name> last;
    private boolean more;

    private TreeListing(SandboxRoot root, List<Name> directory, int depth, int limit) {
        this.root = root;
        this.directory = directory;
        this.depth = depth;
        this.limit = limit;
    }

    /**
     * @param depth 1 lists the directory's own entries, 2 also theirs, ... up to {@link #MAX_DEPTH}
     * @param limit entries in this page, 1..{@link #MAX_LIMIT}
     * @param after where the previous page ended; null for the first page
     */
    static TreeListing open(SandboxRoot root, byte[] clientPath, int depth, int limit, ListCursor after)
            throws SandboxException {
        if (depth < 1 || depth > MAX_DEPTH) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "depth must be 1.." + MAX_DEPTH);
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "limit must be 1.." + MAX_LIMIT);
        }
        try (SandboxRoot.Resolved r = root.resolve(clientPath, SandboxRoot.Mode.FOLLOW)) {
            if (!r.exists()) {
                throw SandboxRoot.notFound();
            }
            if (!r.isDirectoryTarget()) {
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "path is not a directory");
            }
            TreeListing listing = new TreeListing(root, r.realSegments(), depth, limit);
            int fd = DirectoryReader.openSelf(r.dirFd());
            List<Name> cursor = after == null ? List.of() : after.path();
            try {
                listing.push(fd, List.of(), cursor);
            } catch (IOException | RuntimeException e) {
                listing.close();
                throw e;
            }
            return listing;
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        } catch (IOException e) {
            throw FileStore.ioError(e, "cannot list directory");
        }
    }

    /** The listed directory's real path below the root. */
    public List<Name> directory() {
        return directory;
    }

    /** Delivers this page's entries, at most the page size. */
    public void forEach(EntrySink sink) throws IOException {
        TreeEntry e;
        while (delivered < limit && (e = advance()) != null) {
            sink.accept(e);
            last = e.path();
            delivered++;
        }
        more = delivered == limit && advance() != null;
    }

    /** Where the next page starts; null when this page ended the listing. Valid after {@link #forEach}. */
    public ListCursor next() {
        return more ? new ListCursor(last) : null;
    }

    /**
     * Takes over {@code fd} as a new level.
     *
     * @param cursor the cursor's segments from this level down: names below its first are
     *               skipped, and that name itself is entered but not delivered again
     */
    private void push(int fd, List<Name> prefix, List<Name> cursor) throws LastErrorException, IOException {
        Name from = cursor.isEmpty() ? null : cursor.get(0);
        SortedNames names;
        try {
            names = DirectoryListing.sortedNames(root.rootFd(), fd, from, limit - delivered + 2);
        } catch (IOException | RuntimeException e) {
            Posix.closeQuietly(fd);
            throw e;
        }
        stack.push(new Level(fd, prefix, names, from, cursor.isEmpty() ? List.of() : cursor.subList(1, cursor.size())));
    }

    /** The next entry to deliver, or null at the end of the listing. */
    private TreeEntry advance() throws IOException {
        while (!stack.isEmpty()) {
            Level level = stack.peek();
            Name name = level.names.next();
            if (name == null) {
                stack.pop().close();
                continue;
            }
            List<Name> path = append(level.prefix, name);
            if (level.resume != null) {
                boolean same = name.equals(level.resume);
                level.resume = null;
                if (same) {
                    // delivered by an earlier page (with its ancestors); what is below it is not
                    enter(level, name, path, level.cursorTail);
                    continue;
                }
            }
            TreeEntry e = describe(level.fd, name, path);
            if (e == null) {
                continue; // vanished since the names were read
            }
            if (e.type() == EntryType.DIRECTORY) {
                String error = enter(level, name, path, List.of());
                if (error != null) {
                    e = new TreeEntry(e.path(), e.type(), e.size(), e.mode(), e.modifiedAt(), e.etag(), null, error);
                }
            }
            return e;
        }
        return null;
    }

    /** Enters a directory if the depth allows; @return why it could not be read, or null */
    private String enter(Level level, Name name, List<Name> path, List<Name> cursor) throws IOException {
        if (stack.size() >= depth) {
            return null;
        }
        int fd;
        try {
            fd = DirectoryReader.openChild(level.fd, name);
        } catch (LastErrorException e) {
            int errno = e.getErrorCode();
            if (errno == Posix.ENOENT || errno == Posix.ENOTDIR || errno == Posix.ELOOP) {
                return null; // gone, or no longer a directory: nothing below it to list
            }
            return SandboxRoot.map(e).getMessage();
        }
        try {
            push(fd, path, cursor);
            return null;
        } catch (LastErrorException e) {
            return SandboxRoot.map(e).getMessage();
        }
    }

    private static List<Name> append(List<Name> prefix, Name name) {
        List<Name> p = new ArrayList<>(prefix.size() + 1);
        p.addAll(prefix);
        p.add(name);
        return p;
    }

    /** @return null when the entry is gone */
    private static TreeEntry describe(int dirFd, Name name, List<Name> path) {
        try {
            Posix.Stat st = Posix.statAt(dirFd, name);
            EntryType type = EntryType.of(st.mode());
            byte[] target = type == EntryType.SYMLINK ? Posix.readlinkat(dirFd, name) : null;
            if (type == EntryType.SYMLINK && target == null) {
                return null; // replaced by something else since the statx: the next page may see it
            }
            return new TreeEntry(
                    path,
                    type,
                    st.size(),
                    st.mode() & 07777,
                    Instant.ofEpochSecond(st.mtimeSeconds(), st.mtimeNanos()),
                    type == EntryType.FILE ? FileStore.info(st).etag() : null,
                    target,
                    null);
        } catch (LastErrorException e) {
            return null;
        }
    }

    @Override
    public void close() {
        while (!stack.isEmpty()) {
            stack.pop().close();
        }
    }

    /** One open directory of the walk: its descriptor and the names still to deliver. */
    private static final class Level {
        final int fd;
        final List<Name> prefix;
        final SortedNames names;
        /** The cursor's name at this level: entered, not delivered again; null once passed. */
        Name resume;

        final List<Name> cursorTail;

        Level(int fd, List<Name> prefix, SortedNames names, Name resume, List<Name> cursorTail) {
            this.fd = fd;
            this.prefix = prefix;
            this.names = names;
            this.resume = resume;
            this.cursorTail = cursorTail;
        }

        void close() {
            Posix.closeQuietly(fd);
            try {
                names.close();
            } catch (IOException e) {
                // a spill file that fails to close is gone with its descriptor anyway
            }
        }
    }
}
