package io.sandboxd.daemon.process.os;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;

/**
 * glibc's posix_spawn family, bound with JNA direct mapping (a spawn makes about ten of these
 * calls). posix_spawn runs the child with {@code clone(CLONE_VM|CLONE_VFORK)} and execs right
 * away: one exec per process (the JDK's ProcessBuilder costs a jspawnhelper exec plus, for a new
 * session, a setsid exec), and the parent resumes only once the exec happened or failed — so exec
 * errors come back as a return value, and the child never runs with the JVM's signal handlers.
 * Needs glibc 2.34+ ({@code addclosefrom_np}) for closing inherited descriptors.
 */
public final class PosixSpawn {
    static final short POSIX_SPAWN_SETSIGDEF = 0x04;
    static final short POSIX_SPAWN_SETSIGMASK = 0x08;
    static final short POSIX_SPAWN_SETSID = 0x80;

    /** glibc's posix_spawn_file_actions_t is 80 bytes and posix_spawnattr_t 336 on x86-64/aarch64; with headroom. */
    static final int FILE_ACTIONS_SIZE = 256;

    static final int ATTR_SIZE = 1024;
    static final int SIGSET_SIZE = 128;
    /** struct sigaction is 152 bytes on x86-64; the handler comes first. */
    private static final int SIGACTION_SIZE = 512;

    private static final long SIG_IGN = 1;
    /** glibc reserves 32 and 33 (thread cancellation, setxid) and leaves them alone in the child. */
    private static final int FIRST_RESERVED = 32;

    private static final int LAST_RESERVED = 33;
    private static final int NSIG = 65;

    static {
        Native.register(PosixSpawn.class, NativeLibrary.getInstance("c"));
    }

    private PosixSpawn() {}

    // The per-spawn calls take raw addresses (SpawnScratch): no JNA object per call.
    static native int posix_spawn(int[] pid, long path, long fileActions, long attr, long argv, long envp);

    static native int posix_spawn_file_actions_init(long fa);

    static native int posix_spawn_file_actions_destroy(long fa);

    static native int posix_spawn_file_actions_adddup2(long fa, int fd, int newFd);

    static native int posix_spawn_file_actions_addopen(long fa, int fd, long path, int oflag, int mode);

    static native int posix_spawn_file_actions_addchdir_np(long fa, long path);

    static native int posix_spawn_file_actions_addclosefrom_np(long fa, int from);

    static native int posix_spawnattr_init(Pointer attr);

    static native int posix_spawnattr_setflags(Pointer attr, short flags);

    static native int posix_spawnattr_setsigdefault(Pointer attr, Pointer sigset);

    static native int posix_spawnattr_setsigmask(Pointer attr, Pointer sigset);

    static native int sigemptyset(Pointer set);

    static native int sigaddset(Pointer set, int sig);

    static native int sigaction(int sig, Pointer act, Pointer oldact);

    /**
     * The attributes every child gets, built once per process runtime (at its first spawn, after the
     * daemon's signal setup) and only read afterwards: its own session, an
     * empty signal mask, and default dispositions for the signals this daemon ignores (a daemon
     * started under {@code nohup} or with {@code &} ignores SIGHUP/SIGINT/SIGQUIT, and exec keeps
     * ignored signals ignored). Only those: glibc resets each listed signal with a syscall in the
     * child while the parent waits, and handled signals are reset by exec anyway.
     */
    public static Memory attributes() {
        return Attributes.build();
    }

    private static final class Attributes {
        static Memory build() {
            Memory attr = zeroed(ATTR_SIZE);
            Memory sigdef = zeroed(SIGSET_SIZE);
            Memory mask = zeroed(SIGSET_SIZE);
            Memory old = zeroed(SIGACTION_SIZE);
            check(posix_spawnattr_init(attr));
            check(sigemptyset(sigdef));
            check(sigemptyset(mask));
            for (int sig = 1; sig < NSIG; sig++) {
                if (sig >= FIRST_RESERVED && sig <= LAST_RESERVED) {
                    continue;
                }
                if (sigaction(sig, null, old) == 0 && old.getLong(0) == SIG_IGN) {
                    sigaddset(sigdef, sig);
                }
            }
            check(posix_spawnattr_setsigdefault(attr, sigdef));
            check(posix_spawnattr_setsigmask(attr, mask));
            check(posix_spawnattr_setflags(
                    attr, (short) (POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)));
            return attr; // never destroyed: glibc's attr holds no resources; freed with the Memory
        }

        private static void check(int rc) {
            if (rc != 0) {
                throw new IllegalStateException("posix_spawnattr setup failed: errno " + rc);
            }
        }
    }

    static Memory zeroed(int size) {
        Memory m = new Memory(size);
        m.clear();
        return m;
    }

    /** A NUL-terminated UTF-8 copy (JNA's String mapping would use the platform charset). */
    static Memory cString(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        Memory m = new Memory(b.length + 1L);
        m.write(0, b, 0, b.length);
        m.setByte(b.length, (byte) 0);
        return m;
    }
}
