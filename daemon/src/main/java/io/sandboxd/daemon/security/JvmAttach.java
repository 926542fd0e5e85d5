package io.sandboxd.daemon.security;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * Closes the JVM's attach mechanism to processes of the daemon's own user. HotSpot starts its
 * attach listener when it receives SIGQUIT while an {@code .attach_pid<pid>} file exists, and
 * accepts any client with the same uid: a sandboxed process running as the daemon's user could
 * then {@code jcmd <pid> GC.heap_dump} and read the token out of the heap, non-dumpable or not
 * (seen: {@code jcmd VM.system_properties} answered a child of a same-uid daemon). Ignoring
 * SIGQUIT means the listener never starts. The cost is that {@code kill -3} thread dumps and
 * jcmd are off for such a daemon; with {@code --run-as-user} they stay on, since the children's
 * uid can neither signal nor attach to the daemon.
 */
public final class JvmAttach {
    private static final int SIGQUIT = 3;
    private static final long SIG_IGN = 1;

    static {
        Native.register(JvmAttach.class, NativeLibrary.getInstance("c"));
    }

    private JvmAttach() {}

    private static native long signal(int sig, long handler);

    private static native int geteuid();

    /** Whether the daemon runs as root, whose children (same uid) could read anything anyway. */
    public static boolean runningAsRoot() {
        return geteuid() == 0;
    }

    public static void refuseSameUserAttach() {
        signal(SIGQUIT, SIG_IGN);
    }
}
