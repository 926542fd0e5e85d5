package io.sandboxd.daemon.process.os;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Spawns a pipe-mode process with posix_spawn: its own session (pid == pgid == sid), every signal
 * disposition reset to default and an empty signal mask (a daemon started under {@code nohup} or
 * with {@code &} has SIGINT/SIGQUIT/SIGHUP ignored, and exec would pass that on), stdin from a
 * pipe or /dev/null, stdout and stderr to pipes, the working directory set, and every other
 * descriptor closed (the JDK opens some without O_CLOEXEC, e.g. accepted HTTP connections).
 */
public final class PipeSpawner {
    private static final int ENOENT = 2;
    private static final int E2BIG = 7;
    private static final int ENOEXEC = 8;
    private static final int ENOMEM = 12;
    private static final int EACCES = 13;
    private static final int ENOTDIR = 20;
    private static final int ENFILE = 23;
    private static final int EMFILE = 24;
    private static final int O_RDONLY = 0;
    private static final Memory DEV_NULL = PosixSpawn.cString("/dev/null");

    /** The parent's ends; {@code stdin} is -1 when the child reads /dev/null. */
    public record Spawned(long pid, int stdin, int stdout, int stderr) {}

    private PipeSpawner() {}

    /**
     * @param argv        the arguments, {@code argv[0]} as the caller wrote it
     * @param environment every variable as {@code KEY=VALUE} bytes, without the NUL
     * @param attributes  from {@link PosixSpawn#attributes()}
     * @param prefix      the start of every error message, e.g. "failed to start command"
     * @throws SandboxException NOT_FOUND / PERMISSION_DENIED for exec errors, RESOURCE_EXHAUSTED
     *                          for descriptor or process limits, INTERNAL otherwise
     */
    public static Spawned spawn(
            Path executable,
            List<String> argv,
            byte[][] environment,
            Path workingDirectory,
            boolean withStdin,
            Pointer attributes,
            String prefix)
            throws SandboxException {
        int[] out = new int[] {-1, -1};
        int[] err = new int[] {-1, -1};
        int[] in = new int[] {-1, -1};
        boolean ok = false;
        try {
            pipe(out, prefix);
            pipe(err, prefix);
            if (withStdin) {
                pipe(in, prefix);
            }
            SpawnScratch scratch = SpawnScratch.forThisThread();
            scratch.layout(executable, argv, environment, workingDirectory);
            long pid = posixSpawn(scratch, argv.get(0), in[0], out[1], err[1], attributes, prefix);
            closeQuietly(out[1]);
            closeQuietly(err[1]);
            closeQuietly(in[0]);
            out[1] = err[1] = in[0] = -1;
            try {
                NativeIo.setNonBlocking(out[0]);
                NativeIo.setNonBlocking(err[0]);
            } catch (IOException e) {
                // the child runs already: the caller's owner will kill and reap it
                throw new IllegalStateException(e.getMessage(), e);
            }
            ok = true;
            return new Spawned(pid, in[1], out[0], err[0]);
        } finally {
            if (!ok) {
                for (int fd : new int[] {out[0], out[1], err[0], err[1], in[0], in[1]}) {
                    closeQuietly(fd);
                }
            }
        }
    }

    /** @param scratch laid out for this spawn; released here */
    private static long posixSpawn(
            SpawnScratch scratch, String command, int stdinFd, int stdoutFd, int stderrFd, Pointer attr, String prefix)
            throws SandboxException {
        long fa = scratch.fileActionsAddress();
        check(PosixSpawn.posix_spawn_file_actions_init(fa), "file actions", prefix);
        try {
            if (stdinFd >= 0) {
                check(PosixSpawn.posix_spawn_file_actions_adddup2(fa, stdinFd, 0), "stdin", prefix);
            } else {
                check(
                        PosixSpawn.posix_spawn_file_actions_addopen(fa, 0, Pointer.nativeValue(DEV_NULL), O_RDONLY, 0),
                        "stdin",
                        prefix);
            }
            check(PosixSpawn.posix_spawn_file_actions_adddup2(fa, stdoutFd, 1), "stdout", prefix);
            check(PosixSpawn.posix_spawn_file_actions_adddup2(fa, stderrFd, 2), "stderr", prefix);
            check(PosixSpawn.posix_spawn_file_actions_addchdir_np(fa, scratch.cwd), "cwd", prefix);
            check(PosixSpawn.posix_spawn_file_actions_addclosefrom_np(fa, 3), "closefrom", prefix);
            int[] pid = new int[1];
            int rc = PosixSpawn.posix_spawn(
                    pid, scratch.executable, fa, Pointer.nativeValue(attr), scratch.argv, scratch.envp);
            if (rc != 0) {
                throw spawnError(rc, command, prefix);
            }
            return pid[0];
        } finally {
            PosixSpawn.posix_spawn_file_actions_destroy(fa);
            scratch.release();
        }
    }

    /** Maps posix_spawn's error (the exec's errno, reported back through the vfork'd child). */
    static SandboxException spawnError(int errno, String command, String prefix) {
        return switch (errno) {
            case ENOENT, ENOTDIR ->
                new SandboxException(ErrorKind.NOT_FOUND, prefix + ": command or path not found: \"" + command + "\"");
            case EACCES ->
                new SandboxException(ErrorKind.PERMISSION_DENIED, prefix + ": permission denied: \"" + command + "\"");
            case EMFILE, ENFILE -> descriptorsExhausted(prefix);
            case NativeIo.EAGAIN, ENOMEM ->
                new SandboxException(
                        ErrorKind.RESOURCE_EXHAUSTED,
                        prefix
                                + ": the sandbox cannot create more processes now (process or memory limit); retry later");
            case ENOEXEC ->
                new SandboxException(
                        ErrorKind.INTERNAL,
                        prefix + ": exec format error: \"" + command + "\" is neither a binary nor a script with #!");
            case E2BIG -> new SandboxException(ErrorKind.INVALID_ARGUMENT, prefix + ": " + ExecveLimits.TOO_LONG);
            default -> new SandboxException(ErrorKind.INTERNAL, prefix + ": errno " + errno);
        };
    }

    public static SandboxException descriptorsExhausted(String prefix) {
        return new SandboxException(
                ErrorKind.RESOURCE_EXHAUSTED,
                prefix + ": the daemon is out of file descriptors (ulimit -n); retry when other processes have ended");
    }

    private static void pipe(int[] fds, String prefix) throws SandboxException {
        if (NativeIo.pipe2(fds, NativeIo.O_CLOEXEC) != 0) {
            int e = NativeIo.errno();
            fds[0] = fds[1] = -1;
            if (e == EMFILE || e == ENFILE) {
                throw descriptorsExhausted(prefix);
            }
            throw new SandboxException(ErrorKind.INTERNAL, prefix + ": pipe2 failed: errno " + e);
        }
    }

    private static void check(int rc, String what, String prefix) throws SandboxException {
        if (rc != 0) {
            if (rc == ENOMEM) {
                throw new SandboxException(ErrorKind.RESOURCE_EXHAUSTED, prefix + ": out of memory");
            }
            throw new SandboxException(
                    ErrorKind.INTERNAL, prefix + ": posix_spawn " + what + " setup failed: errno " + rc);
        }
    }

    static void closeQuietly(int fd) {
        if (fd >= 0) {
            NativeIo.close(fd);
        }
    }
}
