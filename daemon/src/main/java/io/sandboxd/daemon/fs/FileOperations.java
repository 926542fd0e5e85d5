package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import io.sandboxd.daemon.errors.SandboxException;
import java.time.Instant;

/**
 * The everyday file operations of the extension API beyond upstream's read/write/delete
 * (runtime-contract §4.3): stat, mkdir, move, chmod. Knows nothing about HTTP. Every path goes
 * through {@link SandboxRoot#resolve}, and every call after it is relative to the descriptors
 * the resolution returned, so a symlink swapped in meanwhile cannot redirect it.
 */
public final class FileOperations {
    private final SandboxRoot root;

    public FileOperations(SandboxRoot root) {
        this.root = root;
    }

    /**
     * @param follow false: a final symlink is described itself (type {@code symlink}, its target);
     *               true: what it leads to, as {@code GET /v1/files} would serve it
     */
    public EntryStat stat(byte[] clientPath, boolean follow) throws SandboxException {
        UserPath path = root.parse(clientPath);
        SandboxRoot.Mode mode = follow ? SandboxRoot.Mode.FOLLOW : SandboxRoot.Mode.NOFOLLOW_LAST;
        try (SandboxRoot.Resolved r = root.resolve(path, mode)) {
            if (!r.exists()) {
                throw SandboxRoot.notFound();
            }
            Posix.Stat st = r.isDirectoryTarget() ? Posix.stat(r.dirFd()) : Posix.statAt(r.dirFd(), r.name());
            EntryType type = EntryType.of(st.mode());
            byte[] target = null;
            EntryStat.LinkResolution link = null;
            if (type == EntryType.SYMLINK) {
                target = Posix.readlinkat(r.dirFd(), r.name());
                if (target == null) {
                    throw new PathException(PathFailure.CHANGED, "the entry changed during the request");
                }
                link = resolution(r);
            }
            return new EntryStat(
                    r.realSegments(),
                    type,
                    st.size(),
                    st.mode() & 07777,
                    Instant.ofEpochSecond(st.mtimeSeconds(), st.mtimeNanos()),
                    type == EntryType.FILE ? FileStore.info(st).etag() : null,
                    target,
                    link);
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        }
    }

    /** Follows the link at {@code r} exactly as any API path through it would be followed. */
    private EntryStat.LinkResolution resolution(SandboxRoot.Resolved r) {
        try (SandboxRoot.Resolved t = root.resolve(new UserPath(r.realSegments()), SandboxRoot.Mode.FOLLOW)) {
            return t.exists() ? EntryStat.LinkResolution.INSIDE : EntryStat.LinkResolution.DANGLING;
        } catch (PathException e) {
            return e.failure() == PathFailure.ESCAPES
                    ? EntryStat.LinkResolution.OUTSIDE
                    : EntryStat.LinkResolution.DANGLING;
        }
    }
}
