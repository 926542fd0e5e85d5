package io.sandboxd.daemon.process.os;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * How much argument and environment text {@code execve(2)} takes (Linux, fs/exec.c): each string
 * with its NUL at most {@code MAX_ARG_STRLEN} (32 pages); all strings with their NULs, plus one
 * pointer each, within a quarter of the stack limit, at least 32 pages and at most 6 MiB.
 *
 * <p>posix_spawn reports a breach as {@code E2BIG} before anything runs, but pty4j's forked child
 * can only exit after its exec failed, so PTY spawns are checked here first and refused the
 * same way. The kernel also copies the executable's path, which is not counted here: the check
 * never refuses what the kernel would take (a request within a path's length of the total limit
 * still fails in the child).
 */
public final class ExecveLimits {
    /** Said for both spawn modes when the kernel would refuse (or refused) with E2BIG. */
    public static final String TOO_LONG = "argument list and environment too long for the kernel (E2BIG: a single"
            + " argument or variable may have at most 131072 bytes, all of them together about a quarter of the"
            + " stack limit)";

    private static final int ARG_PAGES = 32;
    private static final long MAX_TOTAL = 6L * 1024 * 1024;

    private final long maxString;
    private final long maxTotal;

    /**
     * @param pageSize   the system's page size
     * @param stackLimit the soft RLIMIT_STACK children inherit, negative for unlimited
     */
    ExecveLimits(long pageSize, long stackLimit) {
        this.maxString = ARG_PAGES * pageSize;
        long quarter = stackLimit < 0 ? MAX_TOTAL : Math.min(MAX_TOTAL, stackLimit / 4);
        this.maxTotal = Math.max(quarter, ARG_PAGES * pageSize);
    }

    /** This daemon's limits (its children inherit its RLIMIT_STACK). */
    public static ExecveLimits ofThisProcess() {
        return Holder.SELF;
    }

    /** @return whether execve would take these strings ({@code environment} without the NULs) */
    public boolean fits(List<String> argv, byte[][] environment) {
        long total = 0;
        for (String a : argv) {
            long n = a.getBytes(StandardCharsets.UTF_8).length + 1L;
            if (n > maxString) {
                return false;
            }
            total += n + Long.BYTES;
        }
        for (byte[] e : environment) {
            long n = e.length + 1L;
            if (n > maxString) {
                return false;
            }
            total += n + Long.BYTES;
        }
        return total <= maxTotal;
    }

    private static final class Holder {
        static final ExecveLimits SELF = new ExecveLimits(NativeIo.pageSize(), NativeIo.stackLimit());
    }
}
