package io.sandboxd.daemon.process.os;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import io.sandboxd.daemon.errors.SandboxException;
import java.util.Arrays;

/**
 * Who the processes run as. {@link #INHERIT}: the daemon's own user (the default). Otherwise
 * {@code --run-as-user}: that uid, gid and supplementary groups.
 *
 * <p>A spawn gives the child other credentials by switching those of the spawning thread alone,
 * for the duration of the spawn: posix_spawn's vfork child and pty4j's forking thread are created
 * by that thread and copy its credentials, and exec then makes them the child's real, effective
 * and saved ids. The switch uses the raw {@code setgroups}/{@code setresgid}/{@code setresuid}
 * syscalls, which act on the calling thread only (glibc's wrappers would switch every thread of
 * the daemon). The saved uid stays the daemon's, so the thread can switch back; the child's exec
 * replaces it. A thread that cannot switch back would keep the user's identity inside the
 * daemon: that ends the daemon ({@link Runtime#halt}).
 */
public final class ChildCredentials {
    public static final ChildCredentials INHERIT = new ChildCredentials(-1, -1, new int[0]);

    private static final boolean ARM = Platform.isARM();
    private static final long SYS_SETGROUPS = ARM ? 159 : 116;
    private static final long SYS_SETRESUID = ARM ? 147 : 117;
    private static final long SYS_SETRESGID = ARM ? 149 : 119;
    private static final long KEEP = -1;

    private final int uid;
    private final int gid;
    private final int[] groups;
    /** The daemon's own, restored after each spawn. */
    private final int daemonUid;

    private final int daemonGid;
    private final int[] daemonGroups;

    private ChildCredentials(int uid, int gid, int[] groups) {
        this.uid = uid;
        this.gid = gid;
        this.groups = groups.clone();
        if (uid < 0) {
            daemonUid = daemonGid = -1;
            daemonGroups = new int[0];
        } else {
            Libc.init();
            daemonUid = Libc.geteuid();
            daemonGid = Libc.getegid();
            int n = Libc.getgroups(0, null);
            int[] g = new int[Math.max(n, 0)];
            daemonGroups = n > 0 && Libc.getgroups(n, g) == n ? g : new int[0];
        }
    }

    /** @param groups the supplementary groups the children get (usually the user's from /etc/group) */
    public static ChildCredentials of(int uid, int gid, int[] groups) {
        if (uid < 0 || gid < 0) {
            throw new IllegalArgumentException("uid and gid must not be negative");
        }
        return new ChildCredentials(uid, gid, groups);
    }

    public boolean inherits() {
        return uid < 0;
    }

    public int uid() {
        return uid;
    }

    public int gid() {
        return gid;
    }

    public int[] groups() {
        return groups.clone();
    }

    /** A spawn that runs with the children's credentials on the calling thread. */
    public interface Spawn<T> {
        T run() throws SandboxException;
    }

    /** Runs {@code spawn} on this thread with the children's credentials, then restores the daemon's. */
    public <T> T spawnAs(Spawn<T> spawn) throws SandboxException {
        if (inherits()) {
            return spawn.run();
        }
        try {
            switchTo(groups, gid, uid);
            return spawn.run();
        } finally {
            restore();
        }
    }

    /**
     * Proves at startup that the daemon may switch (CAP_SETUID and CAP_SETGID) by switching a
     * thread and back. @throws IllegalStateException when it may not
     */
    public void checkSwitchable() {
        if (inherits()) {
            return;
        }
        Thread t = new Thread(
                () -> {
                    try {
                        switchTo(groups, gid, uid);
                    } finally {
                        restore();
                    }
                },
                "sandboxd-credential-check");
        Throwable[] failure = new Throwable[1];
        t.setUncaughtExceptionHandler((th, e) -> failure[0] = e);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure[0] != null) {
            throw new IllegalStateException(failure[0].getMessage());
        }
    }

    private static void switchTo(int[] groups, int gid, int uid) {
        // groups and gid first: they need CAP_SETGID, which the uid switch takes away
        check(Libc.syscall(SYS_SETGROUPS, groups.length, groups.length == 0 ? null : groups, 0), "setgroups");
        check(Libc.syscall(SYS_SETRESGID, gid, gid, KEEP), "setresgid");
        check(Libc.syscall(SYS_SETRESUID, uid, uid, KEEP), "setresuid");
    }

    private void restore() {
        try {
            check(Libc.syscall(SYS_SETRESUID, daemonUid, daemonUid, KEEP), "setresuid back");
            check(Libc.syscall(SYS_SETRESGID, daemonGid, daemonGid, KEEP), "setresgid back");
            check(
                    Libc.syscall(SYS_SETGROUPS, daemonGroups.length, daemonGroups.length == 0 ? null : daemonGroups, 0),
                    "setgroups back");
            // a credential change resets the dumpable flag to fs.suid_dumpable
            io.sandboxd.daemon.security.Prctl.makeNonDumpable();
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger("sandboxd")
                    .error(
                            "sandboxd: cannot restore the daemon's credentials after a spawn ({}): stopping",
                            e.getMessage());
            Runtime.getRuntime().halt(70);
        }
    }

    private static void check(long rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed: errno " + Native.getLastError()
                    + " (--run-as-user needs CAP_SETUID and CAP_SETGID, e.g. a daemon running as root)");
        }
    }

    /** Only what the switch needs. */
    static final class Libc {
        static {
            Native.register(Libc.class, NativeLibrary.getInstance("c"));
        }

        static void init() {
            // loads the class (and libc binding) before the first spawn
        }

        static native long syscall(long number, long a1, int[] a2, long a3);

        static native long syscall(long number, long a1, long a2, long a3);

        static native int geteuid();

        static native int getegid();

        static native int getgroups(int size, int[] list);
    }

    @Override
    public String toString() {
        return inherits() ? "the daemon's user" : uid + ":" + gid + " groups " + Arrays.toString(groups);
    }
}
