package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;

/**
 * Removes upload temp files a previous daemon left behind (crash, kill -9), anywhere in the tree,
 * walking it iteratively (no recursion, no descriptor per level, any depth) and never through a
 * symlink. Temps whose name carries this daemon's instance id are its own uploads in flight and stay.
 * A stale temp that is a directory (an archive upload's staging directory) goes with its tree.
 */
final class StaleTempSweep {
    private StaleTempSweep() {}

    /** @return how many stale temps were removed; best effort, a failure ends the sweep quietly */
    static int run(int rootFd, String instanceId) {
        byte[] own = (UserPath.TEMP_PREFIX + instanceId).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int removed = 0;
        try (DirectoryReader reader = new DirectoryReader()) {
            DirectoryPath path = new DirectoryPath();
            reader.moveTo(DirectoryReader.openSelf(rootFd));
            path.push(reader.fd());
            while (true) {
                if (reader.next()) {
                    Name name = reader.name();
                    boolean stale = name.startsWith(UserPath.TEMP_PREFIX_BYTES) && !name.startsWith(own);
                    if (stale && reader.isDirectory()) {
                        removed += removeTree(reader.fd(), name);
                    } else if (reader.isDirectory()) {
                        int child;
                        try {
                            child = DirectoryReader.openChild(reader.fd(), name);
                        } catch (LastErrorException e) {
                            continue;
                        }
                        path.setResumeOffset(reader.offset());
                        reader.moveTo(child);
                        path.push(child);
                    } else if (stale) {
                        try {
                            Posix.unlinkat(reader.fd(), name, 0);
                            removed++;
                        } catch (LastErrorException e) {
                            // gone already, or not ours to remove
                        }
                    }
                    continue;
                }
                if (path.depth() == 0) {
                    return removed;
                }
                reader.moveTo(path.climb(reader.fd()));
                reader.seek(path.resumeOffset());
            }
        } catch (LastErrorException | PathException e) {
            return removed;
        }
    }

    /** @return 1 when the stale staging directory {@code name} is gone with its tree, else 0 */
    private static int removeTree(int parentFd, Name name) {
        try {
            int fd = DirectoryReader.openChild(parentFd, name);
            try {
                TreeRemover.removeContents(fd);
            } finally {
                Posix.closeQuietly(fd);
            }
            Posix.unlinkat(parentFd, name, Posix.AT_REMOVEDIR);
            return 1;
        } catch (LastErrorException | PathException e) {
            return 0;
        }
    }
}
