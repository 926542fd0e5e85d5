package io.sandboxd.bench.archive;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Directory archives (issue 19, runtime-contract §4.3) against local GNU tar on the same tree, in
 * the same run, interleaved round by round: download ({@code GET fs/archive}, read to the end by
 * the client) against {@code tar -c} into a pipe read to the end, and upload ({@code PUT
 * fs/archive}) against {@code tar -x} of the same archive, twice: once against {@code tar -x}
 * alone, and once against {@code tar -x} followed by {@code sync -f} of what it wrote. The
 * second is the like-for-like baseline: an upload answers 200 only once its tree is durable
 * ({@code syncfs} of the staging directory's filesystem before the rename, the contract's
 * default), which is exactly what {@code sync -f} adds to {@code tar -x}; tar alone leaves the
 * data in the page cache, and its ratio is shown so that the cost of durability stays visible.
 * The like-for-like pair of plain {@code tar -x} is an upload with {@code sync=false} (answered
 * once the tree is in place, its data possibly still in the page cache).
 * Each synced step starts from a synced filesystem (an untimed {@code sync -f} before it), so
 * neither pays for the other's writes. Ratios are tar's time over the daemon's (1.0: as fast as
 * tar; the target is at least 0.70); medians of the rounds, with the load average before
 * and after.
 *
 * <pre>sandboxd-bench archive --jar daemon/target/sandboxd.jar [--files 10000] [--size 4096] [--rounds 7]</pre>
 */
public final class ArchiveBenchmark {
    /** Bounds the connect and every read of the benchmark's own HTTP client. */
    private static final Duration IO_TIMEOUT = Duration.ofSeconds(120);

    private ArchiveBenchmark() {}

    public static int run(String[] args) {
        return run(args, System.out);
    }

    static int run(String[] args, PrintStream out) {
        String jar = null;
        int files = 10_000;
        int size = 4096;
        int rounds = 7;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jar" -> jar = args[++i];
                case "--files" -> files = Integer.parseInt(args[++i]);
                case "--size" -> size = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: sandboxd-bench archive --jar SANDBOXD_JAR [--files N] [--size BYTES]"
                            + " [--rounds N]");
                    return 2;
                }
            }
        }
        if (jar == null) {
            System.err.println("sandboxd-bench archive: --jar is required");
            return 2;
        }
        try {
            measure(Path.of(jar), files, size, rounds, out);
            return 0;
        } catch (Exception e) {
            e.printStackTrace(out);
            return 1;
        }
    }

    private static void measure(Path jar, int files, int size, int rounds, PrintStream out) throws Exception {
        Path work = Files.createTempDirectory("sandboxd-bench-archive-");
        Path root = Files.createDirectories(work.resolve("root"));
        Path tree = Files.createDirectories(root.resolve("tree"));
        makeTree(tree, files, size);
        Path tarFile = work.resolve("tree.tar");
        exec(work, "tar", "-C", tree.toString(), "-cf", tarFile.toString(), ".");
        byte[] archive = Files.readAllBytes(tarFile);
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).strip();
        List<Double> tarC = new ArrayList<>();
        List<Double> get = new ArrayList<>();
        List<Double> tarX = new ArrayList<>();
        List<Double> tarXSync = new ArrayList<>();
        List<Double> put = new ArrayList<>();
        List<Double> putUnsynced = new ArrayList<>();
        try (RunningDaemon d = DaemonSpec.jar(jar)
                .withRootDir(root)
                .withLogs(work, "daemon")
                .withReadyTimeout(Duration.ofSeconds(60))
                .start()) {
            URI rest = URI.create(d.restBase());
            String base = "/sandboxd/v1alpha1/fs/archive?path=";
            for (int r = -1; r < rounds; r++) { // round -1 warms both up and is not counted
                double c = timed(() -> exec(root, "sh", "-c", "tar -C tree -cf - . | cat > /dev/null"));
                double g = timed(() -> download(rest, base + "tree"));
                exec(work, "sync", "-f", work.toString());
                Path ydir = Files.createDirectories(root.resolve("y" + r));
                double xs = timed(() -> exec(
                        work,
                        "sh",
                        "-c",
                        "tar -C \"$1\" -xf \"$2\" && sync -f \"$1\"",
                        "sh",
                        ydir.toString(),
                        tarFile.toString()));
                String target = base + "up" + r;
                double p = timed(() -> upload(rest, target, archive));
                Path xdir = Files.createDirectories(root.resolve("x" + r));
                double x = timed(() -> exec(work, "tar", "-C", xdir.toString(), "-xf", tarFile.toString()));
                exec(work, "sync", "-f", work.toString());
                String unsynced = base + "un" + r + "&sync=false";
                double pn = timed(() -> upload(rest, unsynced, archive));
                exec(work, "sync", "-f", work.toString());
                if (r >= 0) {
                    tarC.add(c);
                    get.add(g);
                    tarX.add(x);
                    tarXSync.add(xs);
                    put.add(p);
                    putUnsynced.add(pn);
                }
            }
        } finally {
            new ProcessBuilder("rm", "-rf", work.toString()).start().waitFor();
        }
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).strip();
        out.printf(
                "archive benchmark: %d files of %d bytes (tar %d bytes), %d rounds interleaved, medians%n",
                files, size, archive.length, rounds);
        out.printf("%-46s %10s %10s %8s%n", "operation", "tar ms", "daemon ms", "ratio");
        row(out, "download (GET fs/archive vs tar c)", tarC, get);
        row(out, "upload (PUT fs/archive vs tar x + sync -f)", tarXSync, put);
        row(out, "upload (PUT fs/archive vs tar x, unsynced)", tarX, put);
        row(out, "upload (PUT fs/archive?sync=false vs tar x)", tarX, putUnsynced);
        out.printf(
                "load average before: %s; after: %s; cpus %d%n",
                loadBefore, loadAfter, Runtime.getRuntime().availableProcessors());
    }

    private static void row(PrintStream out, String what, List<Double> tar, List<Double> daemon) {
        double t = median(tar);
        double d = median(daemon);
        out.printf("%-46s %10.1f %10.1f %8.2f%n", what, t, d, t / d);
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(Comparator.naturalOrder());
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private interface Step {
        void run() throws Exception;
    }

    private static double timed(Step s) throws Exception {
        long t0 = System.nanoTime();
        s.run();
        return (System.nanoTime() - t0) / 1e6;
    }

    private static void makeTree(Path tree, int files, int size) throws IOException {
        byte[] content = new byte[size];
        for (int i = 0; i < files; i++) {
            Path dir = tree.resolve("d" + (i / 100));
            if (i % 100 == 0) {
                Files.createDirectories(dir);
            }
            content[0] = (byte) i;
            Files.write(dir.resolve("f" + i + ".txt"), content);
        }
    }

    /**
     * GET read to the end by a plain socket client that drops the bytes as they come: the HTTP
     * equivalent of {@code tar c | cat}. java.net.http's {@code ofInputStream} spent 180-1,020 ms
     * of its own CPU per 46 MB archive here (falling as it warmed up) against the daemon's ~230
     * ms, so the download column measured mostly the client.
     */
    private static void download(URI base, String target) throws Exception {
        try (RawHttp h = RawHttp.connect(base, IO_TIMEOUT)) {
            h.send(RawRequest.get(target).closing());
            RawResponse r = h.read(false, OutputStream.nullOutputStream());
            if (r.status() != 200) {
                throw new IOException("GET archive: " + r.describe());
            }
        }
    }

    /** PUT of the archive from memory by the same plain client, the answer read whole. */
    private static void upload(URI base, String target, byte[] archive) throws Exception {
        try (RawHttp h = RawHttp.connect(base, IO_TIMEOUT)) {
            h.send(RawRequest.put(target, archive).closing());
            RawResponse r = h.read();
            if (r.status() != 200) {
                throw new IOException("PUT archive: " + r.describe());
            }
        }
    }

    private static void exec(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + output);
        }
    }
}
