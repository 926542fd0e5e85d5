package io.sandboxd.daemon.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the heavy ITs build their huge trees: tmpfs (/dev/shm) when the machine has it, because
 * creating and deleting a million inodes there takes seconds rather than the minute it takes on
 * a journaling disk shared with other builds (100,000-deep chain: 2.1 s to create and 2.7 s for
 * rm -rf on tmpfs, 5.1 s and 13.4 s on ext4). The fallback is the given directory.
 */
final class ScratchDir {
    private ScratchDir() {}

    static Path under(Path fallback) throws IOException {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return Files.createTempDirectory(shm, "sandboxd-it-");
        }
        return Files.createTempDirectory(fallback, "scratch-");
    }

    /** rm -rf: the trees are far too deep and wide for Java's recursive file walk. */
    static void remove(Path dir) throws Exception {
        new ProcessBuilder("rm", "-rf", dir.toString()).inheritIO().start().waitFor();
    }

    /** Runs python3 in {@code dir}: the trees are made by a process, as sandboxed code would make them. */
    static void python(Path dir, String program) throws Exception {
        Process p = new ProcessBuilder("python3", "-c", program)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new AssertionError("python3 failed: " + out);
        }
    }
}
