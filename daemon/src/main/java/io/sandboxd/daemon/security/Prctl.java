package io.sandboxd.daemon.security;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The daemon's own process hardening through {@code prctl(2)}, bound with JNA direct mapping.
 *
 * <p>{@link #makeNonDumpable()}: with {@code PR_SET_DUMPABLE 0} the kernel makes the daemon's
 * {@code /proc/<pid>} entries root-owned and refuses {@code /proc/<pid>/environ}, {@code mem},
 * {@code maps}, {@code fd/} and ptrace/process_vm_readv to every process without CAP_SYS_PTRACE,
 * also to the daemon's own uid, which is what sandboxed processes run as by default. It is
 * called first thing in {@code main}, before the token is read, and again after every
 * credential change of a thread (a change resets it to {@code fs.suid_dumpable}).
 */
public final class Prctl {
    private static final int PR_SET_DUMPABLE = 4;
    private static final int PR_GET_DUMPABLE = 3;

    static {
        Native.register(Prctl.class, NativeLibrary.getInstance("c"));
    }

    private Prctl() {}

    private static native int prctl(int option, long arg2, long arg3, long arg4, long arg5);

    /** @throws IllegalStateException when the kernel refuses (never expected on Linux) */
    public static void makeNonDumpable() {
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
            throw new IllegalStateException("prctl(PR_SET_DUMPABLE, 0) failed: errno " + Native.getLastError());
        }
    }

    public static boolean isDumpable() {
        return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1;
    }
}
