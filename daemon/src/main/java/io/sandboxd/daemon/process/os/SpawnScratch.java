package io.sandboxd.daemon.process.os;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Per-thread native memory for one spawn: the file-actions struct, and argv, envp and the two
 * paths as C strings with their pointer arrays, laid out in one block that is reused by the
 * next spawn on the same thread. Allocating these as JNA objects (a Memory per string) made
 * every spawn leave ~40 Cleaner registrations that survive a young collection: measured 5 MiB
 * promoted per ~450 Executes, 11-15 ms young pauses and regular full collections.
 */
final class SpawnScratch {
    private static final ThreadLocal<SpawnScratch> CURRENT = ThreadLocal.withInitial(SpawnScratch::new);
    /** A block this large is released after use rather than kept for the thread's next spawn. */
    private static final long KEEP_AT_MOST = 256 * 1024;

    final Memory fileActions = PosixSpawn.zeroed(PosixSpawn.FILE_ACTIONS_SIZE);
    private Memory block = new Memory(16 * 1024);
    private long used;

    long argv;
    long envp;
    long executable;
    long cwd;

    static SpawnScratch forThisThread() {
        return CURRENT.get();
    }

    long fileActionsAddress() {
        return Pointer.nativeValue(fileActions);
    }

    /**
     * Lays out the spawn's strings; the addresses stay valid until the next call on this thread.
     *
     * @param envBytes every variable as {@code KEY=VALUE} bytes, without the NUL
     */
    void layout(Path program, List<String> args, byte[][] envBytes, Path workingDirectory) {
        byte[][] argBytes = new byte[args.size()][];
        long need = 8L * (args.size() + 1 + envBytes.length + 1);
        for (int i = 0; i < argBytes.length; i++) {
            argBytes[i] = args.get(i).getBytes(StandardCharsets.UTF_8);
            need += argBytes[i].length + 1;
        }
        for (byte[] e : envBytes) {
            need += e.length + 1;
        }
        byte[] exe = program.toString().getBytes(StandardCharsets.UTF_8);
        byte[] dir = workingDirectory.toString().getBytes(StandardCharsets.UTF_8);
        need += exe.length + 1 + dir.length + 1;
        if (block.size() < need) {
            block = new Memory(Math.max(need, block.size() * 2));
        }
        long base = Pointer.nativeValue(block);
        used = 8L * (args.size() + 1 + envBytes.length + 1);
        argv = base;
        envp = base + 8L * (args.size() + 1);
        for (int i = 0; i < argBytes.length; i++) {
            block.setLong(8L * i, base + put(argBytes[i]));
        }
        block.setLong(8L * argBytes.length, 0);
        for (int i = 0; i < envBytes.length; i++) {
            block.setLong(envp - base + 8L * i, base + put(envBytes[i]));
        }
        block.setLong(envp - base + 8L * envBytes.length, 0);
        executable = base + put(exe);
        cwd = base + put(dir);
    }

    /** After the spawn: an unusually large block is not kept for the thread's lifetime. */
    void release() {
        if (block.size() > KEEP_AT_MOST) {
            block = new Memory(16 * 1024);
        }
    }

    private long put(byte[] s) {
        long at = used;
        block.write(at, s, 0, s.length);
        block.setByte(at + s.length, (byte) 0);
        used += s.length + 1;
        return at;
    }
}
