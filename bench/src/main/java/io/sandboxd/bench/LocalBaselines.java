package io.sandboxd.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/** Same-machine baselines that do the work the runtime does, without the runtime. */
final class LocalBaselines {
    private LocalBaselines() {}

    /** Seconds of a shell command; fails on a non-zero exit. */
    static double timeShell(String script) throws IOException, InterruptedException {
        long t = System.nanoTime();
        Process p = new ProcessBuilder("/bin/sh", "-c", script)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        int rc = p.waitFor();
        double s = (System.nanoTime() - t) / 1e9;
        if (rc != 0) {
            throw new IOException("baseline command failed (exit " + rc + "): " + script);
        }
        return s;
    }

    /** MB/s (10^6 bytes) of {@code head -c N /dev/zero | cat > /dev/null}, one value per run. */
    static double[] pipe(long bytes, int runs) throws IOException, InterruptedException {
        double[] r = new double[runs];
        for (int i = 0; i < runs; i++) {
            r[i] = bytes / 1e6 / timeShell("head -c " + bytes + " /dev/zero | cat > /dev/null");
        }
        return r;
    }

    /** MB/s of {@code cp src dst} followed by {@code sync dst} (fsync of the copy), then rm. */
    static double[] cpSync(Path src, Path dst, int runs) throws IOException, InterruptedException {
        long bytes = Files.size(src);
        double[] r = new double[runs];
        for (int i = 0; i < runs; i++) {
            Files.deleteIfExists(dst);
            timeShell("sync");
            r[i] = bytes / 1e6 / timeShell("cp " + q(src) + " " + q(dst) + " && sync " + q(dst));
        }
        Files.deleteIfExists(dst);
        return r;
    }

    /** MB/s of {@code cat file > /dev/null} (page cache warm, as for the runtime's GET). */
    static double[] cat(Path file, int runs) throws IOException, InterruptedException {
        long bytes = Files.size(file);
        timeShell("cat " + q(file) + " > /dev/null");
        double[] r = new double[runs];
        for (int i = 0; i < runs; i++) {
            r[i] = bytes / 1e6 / timeShell("cat " + q(file) + " > /dev/null");
        }
        return r;
    }

    /**
     * Round trips/s of the local equivalent of a 4 KiB PUT+GET: create a temp file in the target
     * directory (mkstemp), write, fsync, rename over the target, read it back. One value per window.
     */
    static double[] smallFileRoundTrips(Path dir, int clients, int windows, long windowMs) throws InterruptedException {
        byte[] data = new byte[4096];
        Arrays.fill(data, (byte) 'x');
        double[] rates = new double[windows];
        for (int w = 0; w < windows; w++) {
            AtomicLong ops = new AtomicLong();
            long end = System.nanoTime() + windowMs * 1_000_000L;
            Thread[] ts = new Thread[clients];
            Throwable[] err = new Throwable[1];
            for (int c = 0; c < clients; c++) {
                int client = c;
                ts[c] = new Thread(() -> {
                    try {
                        ByteBuffer rb = ByteBuffer.allocate(8192);
                        int i = 0;
                        while (System.nanoTime() < end) {
                            Path target = dir.resolve("local-" + client + "-" + (i++ % 16));
                            Path tmp = Files.createTempFile(dir, ".up-", ".tmp");
                            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                                ch.write(ByteBuffer.wrap(data));
                                ch.force(true);
                            }
                            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                            try (FileChannel ch = FileChannel.open(target, StandardOpenOption.READ)) {
                                rb.clear();
                                while (ch.read(rb) > 0) {
                                    // read to EOF
                                }
                            }
                            if (rb.position() != data.length) {
                                throw new IOException("short read back");
                            }
                            ops.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        err[0] = t;
                    }
                });
                ts[c].start();
            }
            long t0 = System.nanoTime();
            for (Thread t : ts) {
                t.join();
            }
            if (err[0] != null) {
                throw new IllegalStateException("local 4 KiB loop failed: " + err[0], err[0]);
            }
            rates[w] = ops.get() / ((System.nanoTime() - t0) / 1e9);
        }
        return rates;
    }

    static String q(Path p) {
        return "'" + p.toString().replace("'", "'\\''") + "'";
    }
}
