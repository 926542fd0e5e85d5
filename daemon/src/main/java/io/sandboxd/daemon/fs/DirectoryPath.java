package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;

/**
 * The chain of directories an iterative tree walk stands in, as (device, inode) pairs from the
 * walk's start down to where it is (and, for walks that resume, where each level's reading
 * stopped). It holds no descriptor: climbing opens {@code ..} and checks that it is the very
 * directory the walk came from, so a directory moved elsewhere mid-walk (to outside the root,
 * say) stops the walk instead of leading it there. 100,000 levels cost 2.4 MB.
 */
final class DirectoryPath {
    private long[] levels = new long[3 * 16];
    private int depth;

    /** Enters the directory open as {@code fd} (the start, or a child of the current one). */
    void push(int fd) throws LastErrorException {
        Posix.Stat st = Posix.stat(fd);
        if (3 * (depth + 1) > levels.length) {
            levels = java.util.Arrays.copyOf(levels, levels.length * 2);
        }
        levels[3 * depth] = st.dev();
        levels[3 * depth + 1] = st.ino();
        levels[3 * depth + 2] = 0;
        depth++;
    }

    /** Levels below the start: 0 while the walk stands in its start directory. */
    int depth() {
        return depth - 1;
    }

    /** Remembers where reading of the current directory resumes once the walk climbs back to it. */
    void setResumeOffset(long offset) {
        levels[3 * (depth - 1) + 2] = offset;
    }

    long resumeOffset() {
        return levels[3 * (depth - 1) + 2];
    }

    /**
     * Leaves the current directory ({@code fd}) for its parent.
     *
     * @return a readable descriptor of the parent, the caller's to close
     * @throws PathException CHANGED when {@code ..} is no longer the directory the walk came from
     */
    int climb(int fd) throws PathException {
        if (depth <= 1) {
            throw new IllegalStateException("already at the start");
        }
        int parent;
        Posix.Stat st;
        try {
            parent = DirectoryReader.openParent(fd);
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        }
        try {
            st = Posix.stat(parent);
        } catch (LastErrorException e) {
            Posix.closeQuietly(parent);
            throw SandboxRoot.map(e);
        }
        int at = 3 * (depth - 2);
        if (st.dev() != levels[at] || st.ino() != levels[at + 1]) {
            Posix.closeQuietly(parent);
            throw new PathException(PathFailure.CHANGED, "a directory was moved while the tree was walked");
        }
        depth--;
        return parent;
    }
}
