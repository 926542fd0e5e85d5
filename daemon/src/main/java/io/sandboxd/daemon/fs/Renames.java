package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;

/**
 * The two renames that must be atomic: onto a name only if it is free ({@code RENAME_NOREPLACE}),
 * and the swap of two names ({@code RENAME_EXCHANGE}). Where libc or the filesystem lacks the
 * flag, a fallback says what it can still guarantee.
 */
final class Renames {
    /** Serialises the check-then-rename fallback among this daemon's renames. */
    private static final Object FALLBACK = new Object();

    private Renames() {}

    /**
     * Renames {@code from} to {@code to} unless {@code to} exists (EEXIST then). Without
     * RENAME_NOREPLACE (few filesystems: not ext4, xfs, btrfs, tmpfs, overlayfs) it is a check
     * then a rename, serialised among this daemon's renames only.
     */
    static void noReplace(int fromDir, Name from, int toDir, Name to) throws LastErrorException {
        if (Posix.renameat2Available()) {
            try {
                Posix.Rename2.renameat2(fromDir, from.cString(), toDir, to.cString(), Posix.RENAME_NOREPLACE);
                return;
            } catch (LastErrorException e) {
                if (e.getErrorCode() != Posix.EINVAL && e.getErrorCode() != Posix.ENOSYS) {
                    throw e;
                }
                // EINVAL: this filesystem takes no flags (or a directory into itself, which the
                // plain rename below reports the same way)
            }
        }
        synchronized (FALLBACK) {
            try {
                Posix.typeAt(toDir, to);
                throw new LastErrorException(Posix.EEXIST);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != Posix.ENOENT) {
                    throw e;
                }
            }
            Posix.C.renameat(fromDir, from.cString(), toDir, to.cString());
        }
    }

    /**
     * Swaps two existing names in one step.
     *
     * @return false when this libc or filesystem cannot (the caller falls back)
     */
    static boolean exchange(int dir, Name a, Name b) throws LastErrorException {
        if (!Posix.renameat2Available()) {
            return false;
        }
        try {
            Posix.Rename2.renameat2(dir, a.cString(), dir, b.cString(), Posix.RENAME_EXCHANGE);
            return true;
        } catch (LastErrorException e) {
            if (e.getErrorCode() == Posix.EINVAL || e.getErrorCode() == Posix.ENOSYS) {
                return false;
            }
            throw e;
        }
    }
}
