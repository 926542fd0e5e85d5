package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;

/**
 * Who owns the files and directories the REST API creates. By default the daemon's own user
 * (nothing to do); with {@code --run-as-user} that user, so the processes, which run as it, can
 * change and remove what was uploaded.
 */
public final class FileOwner {
    /** The daemon's own uid and gid: creation gives them already. */
    public static final FileOwner DAEMON = new FileOwner(-1, -1);

    private final int uid;
    private final int gid;

    private FileOwner(int uid, int gid) {
        this.uid = uid;
        this.gid = gid;
    }

    public static FileOwner of(int uid, int gid) {
        return new FileOwner(uid, gid);
    }

    boolean isDaemon() {
        return uid < 0;
    }

    /** Gives an open file to the owner. */
    void apply(int fd) throws LastErrorException {
        if (!isDaemon()) {
            Posix.C.fchown(fd, uid, gid);
        }
    }

    /** Gives {@code name} in {@code dirFd} (not following a symlink) to the owner. */
    void applyAt(int dirFd, Name name) throws PathException {
        if (isDaemon()) {
            return;
        }
        try {
            Posix.C.fchownat(dirFd, name.cString(), uid, gid, Posix.AT_SYMLINK_NOFOLLOW);
        } catch (LastErrorException e) {
            throw SandboxRoot.map(e);
        }
    }
}
