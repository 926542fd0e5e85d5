package io.sandboxd.daemon.process;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * glibc's posix_spawn family. posix_spawn runs the child with {@code clone(CLONE_VM|CLONE_VFORK)}
 * and execs right away: one exec per process (the JDK's ProcessBuilder costs a jspawnhelper exec
 * plus, for a new session, a setsid exec), and the parent resumes only once the exec happened or
 * failed — so exec errors come back as a return value, and the child never runs with the JVM's
 * signal handlers. Needs glibc 2.34+ ({@code addclosefrom_np}) for closing inherited descriptors.
 */
final class PosixSpawn {
    static final short POSIX_SPAWN_SETSIGDEF = 0x04;
    static final short POSIX_SPAWN_SETSIGMASK = 0x08;
    static final short POSIX_SPAWN_SETSID = 0x80;

    /** glibc's posix_spawn_file_actions_t is 80 bytes and posix_spawnattr_t 336 on x86-64/aarch64; with headroom. */
    static final int FILE_ACTIONS_SIZE = 256;
    static final int ATTR_SIZE = 1024;
    static final int SIGSET_SIZE = 128;

    interface LibC extends Library {
        int posix_spawn(int[] pid, String path, Pointer fileActions, Pointer attr, Pointer argv, Pointer envp);

        int posix_spawn_file_actions_init(Pointer fa);

        int posix_spawn_file_actions_destroy(Pointer fa);

        int posix_spawn_file_actions_adddup2(Pointer fa, int fd, int newFd);

        int posix_spawn_file_actions_addopen(Pointer fa, int fd, String path, int oflag, int mode);

        int posix_spawn_file_actions_addchdir_np(Pointer fa, String path);

        int posix_spawn_file_actions_addclosefrom_np(Pointer fa, int from);

        int posix_spawnattr_init(Pointer attr);

        int posix_spawnattr_destroy(Pointer attr);

        int posix_spawnattr_setflags(Pointer attr, short flags);

        int posix_spawnattr_setsigdefault(Pointer attr, Pointer sigset);

        int posix_spawnattr_setsigmask(Pointer attr, Pointer sigset);

        int sigfillset(Pointer set);

        int sigemptyset(Pointer set);
    }

    private static final class Holder {
        static final LibC C = Native.load("c", LibC.class);
    }

    private PosixSpawn() {
    }

    static LibC c() {
        return Holder.C;
    }

    /** A zeroed native block, freed by the GC (the spawn code destroys the glibc state itself). */
    static Memory block(int size) {
        Memory m = new Memory(size);
        m.clear();
        return m;
    }
}
