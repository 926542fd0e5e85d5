package io.sandboxd.bench.code;

import io.sandboxd.api.code.v1alpha1.ContextInfo;
import io.sandboxd.api.code.v1alpha1.ExecuteEvent;
import io.sandboxd.api.code.v1alpha1.ExecutionState;
import io.sandboxd.client.CodeContexts;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code sandboxd-bench code}: code contexts against a daemon it starts from a jar, each figure
 * next to a baseline from the same run: the same kernel driven directly by jupyter_client
 * (Debian's python3-jupyter-client), so the difference is what the daemon adds. The two are
 * interleaved (A/B, in blocks whose order alternates), so both see the same load on a shared
 * machine; the round-trip overhead is also given as the median of the per-block differences. A
 * List call per round trip (unary, no kernel) gives the part of that overhead the gRPC call
 * itself costs.
 *
 * <pre>
 * java -jar sandboxd-bench.jar code --start-daemon daemon/target/sandboxd.jar [--cold 5] [--round-trips 500]
 *      [--block 50] [--warmup 100] [--image-mb 10] [--image-runs 5] [--contexts 4]
 * </pre>
 *
 * A count of 0 skips that part.
 */
public final class CodeBenchmark {
    private CodeBenchmark() {}

    public static int run(String[] args) throws Exception {
        String jar = null;
        int cold = 5;
        int trips = 500;
        int block = 50;
        int warmup = 100;
        int imageMb = 10;
        int imageRuns = 5;
        int contexts = 4;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--start-daemon" -> jar = args[++i];
                case "--cold" -> cold = Integer.parseInt(args[++i]);
                case "--round-trips" -> trips = Integer.parseInt(args[++i]);
                case "--block" -> block = Math.max(1, Integer.parseInt(args[++i]));
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--image-mb" -> imageMb = Integer.parseInt(args[++i]);
                case "--image-runs" -> imageRuns = Integer.parseInt(args[++i]);
                case "--contexts" -> contexts = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: sandboxd-bench code --start-daemon JAR [--cold N] [--round-trips N] "
                            + "[--block N] [--warmup N] [--image-mb MB] [--image-runs N] [--contexts N]");
                    return 2;
                }
            }
        }
        if (jar == null) {
            System.err.println("sandboxd-bench code: --start-daemon JAR is required");
            return 2;
        }
        Path work = Files.createTempDirectory("sandboxd-bench-code-");
        String loadBefore = loadAverage();
        Path root = Files.createDirectories(work.resolve("root"));
        DaemonSpec spec = DaemonSpec.jar(Path.of(jar))
                .withJvmOptions("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss256k")
                .withRootDir(root)
                .withArgs("--state-dir", work.resolve("state").toString());
        try (RunningDaemon d = spec.start();
                DirectKernel direct = DirectKernel.start(work);
                SandboxdClient client = SandboxdClient.builder()
                        .grpcTarget(d.grpcTarget())
                        .restBase(d.restBase())
                        .build()) {
            CodeContexts code = client.code();
            long rss0 = rss(d.jvmPid());

            // 1. cold: CreateContext to the first result of 1+1, alternating which goes first
            double[] coldMs = new double[cold];
            double[] dCold = new double[cold];
            for (int i = 0; i < cold; i++) {
                if (i % 2 == 1) {
                    dCold[i] = direct.cold();
                }
                long t0 = System.nanoTime();
                String id = code.create("python").getId();
                check(code.run(id, "1+1", null));
                coldMs[i] = ms(t0);
                code.delete(id);
                if (i % 2 == 0) {
                    dCold[i] = direct.cold();
                }
            }

            // 2. round trips of 1+1 on one context each, in blocks: ours, theirs, theirs, ours, ...
            String id = code.create("python").getId();
            for (int i = 0; i < warmup; i++) {
                check(code.run(id, "1+1", null));
            }
            direct.start(warmup);
            double[] rtt = new double[trips];
            double[] dRtt = new double[trips];
            double[] listRtt = new double[trips];
            List<Double> blockDiffs = new ArrayList<>();
            for (int done = 0, b = 0; done < trips; done += block, b++) {
                int n = Math.min(block, trips - done);
                double[] theirs = b % 2 == 1 ? direct.rtt(n) : null;
                for (int i = 0; i < n; i++) {
                    long t0 = System.nanoTime();
                    check(code.run(id, "1+1", null));
                    rtt[done + i] = ms(t0);
                }
                // the gRPC floor: a unary call that touches no kernel, on the same channel
                for (int i = 0; i < n; i++) {
                    long t0 = System.nanoTime();
                    code.list();
                    listRtt[done + i] = ms(t0);
                }
                if (theirs == null) {
                    theirs = direct.rtt(n);
                }
                System.arraycopy(theirs, 0, dRtt, done, n);
                blockDiffs.add(p(Arrays.copyOfRange(rtt, done, done + n), 50) - p(theirs, 50));
            }

            // 3. a 10 MB image/png output, generated in the kernel beforehand
            long bytes = (long) imageMb << 20;
            double[] imageMs = new double[imageRuns];
            double[] dImage = new double[imageRuns];
            if (imageRuns > 0) {
                check(code.run(
                        id,
                        "import base64, os\nfrom IPython.display import display\nimg = base64.b64encode(os.urandom("
                                + bytes + ")).decode()",
                        null));
                direct.prepare(bytes);
            }
            for (int i = 0; i < imageRuns; i++) {
                if (i % 2 == 1) {
                    dImage[i] = direct.image();
                }
                long t0 = System.nanoTime();
                CodeContexts.Result r = code.run(id, "display({'image/png': img}, raw=True)", null);
                imageMs[i] = ms(t0);
                check(r);
                long got = r.outputs().stream()
                        .filter(ExecuteEvent::hasRich)
                        .flatMap(e -> e.getRich().getDataList().stream())
                        .mapToLong(m -> m.getBinary().size())
                        .sum();
                if (got != bytes) {
                    throw new IllegalStateException("image/png: expected " + bytes + " bytes, got " + got);
                }
                if (i % 2 == 0) {
                    dImage[i] = direct.image();
                }
            }
            code.delete(id);

            // 4. daemon RSS per idle context, kernel RSS apart
            long rssBase = 0;
            long rssN = 0;
            long kernelRss = 0;
            if (contexts > 0) {
                Thread.sleep(1000);
                rssBase = rss(d.jvmPid());
                List<String> ids = new ArrayList<>();
                for (int i = 0; i < contexts; i++) {
                    ids.add(code.create("python").getId());
                }
                Thread.sleep(2000);
                rssN = rss(d.jvmPid());
                for (ContextInfo c : code.list()) {
                    kernelRss += c.getKernelRssBytes();
                }
                ids.forEach(code::delete);
            }

            System.out.println();
            System.out.println("| figure | through sandboxd | kernel alone (jupyter_client) | difference |");
            System.out.println("|---|---|---|---|");
            if (cold > 0) {
                row("CreateContext to first result, p50 (ms)", p(coldMs, 50), p(dCold, 50));
            }
            if (trips > 0) {
                row("Execute 1+1 round trip p50 (ms)", p(rtt, 50), p(dRtt, 50));
                row("Execute 1+1 round trip p99 (ms)", p(rtt, 99), p(dRtt, 99));
                System.out.printf(
                        "| List round trip p50 / p99, no kernel involved: the gRPC floor (ms) | %.2f / %.2f | | |%n",
                        p(listRtt, 50), p(listRtt, 99));
                double[] diffs =
                        blockDiffs.stream().mapToDouble(Double::doubleValue).toArray();
                System.out.printf(
                        "| Execute 1+1 p50 difference per block of %d, median [min, max] (ms) | | | %+.2f [%+.2f, %+.2f] |%n",
                        block, p(diffs, 50), p(diffs, 0), p(diffs, 100));
            }
            if (imageRuns > 0) {
                double mb = bytes / 1048576.0;
                System.out.printf(
                        "| %d MiB image/png output, median (MiB/s) | %.1f | %.1f | %.2fx |%n",
                        imageMb,
                        mb / (p(imageMs, 50) / 1000),
                        mb / (p(dImage, 50) / 1000),
                        p(dImage, 50) / p(imageMs, 50));
            }
            if (contexts > 0) {
                System.out.printf(
                        "| daemon RSS per idle context (MiB) | %.2f | | (daemon %d MiB at start, %d MiB before, %d MiB with %d contexts) |%n",
                        (rssN - rssBase) / (double) contexts / 1048576,
                        rss0 >> 20,
                        rssBase >> 20,
                        rssN >> 20,
                        contexts);
                System.out.printf(
                        "| kernel RSS per context (MiB) | %.1f | | |%n", kernelRss / (double) contexts / 1048576);
            }
            System.out.println();
            System.out.println("runs: cold " + cold + ", round trips " + trips + " in blocks of " + block + " after "
                    + warmup + " warm-up, image " + imageRuns + "; load before: " + loadBefore + "; after: "
                    + loadAverage());
        } finally {
            deleteTree(work);
        }
        return 0;
    }

    private static void row(String what, double ours, double base) {
        System.out.printf("| %s | %.2f | %.2f | %+.2f |%n", what, ours, base, ours - base);
    }

    private static void check(CodeContexts.Result r) {
        if (r.status().getState() != ExecutionState.EXECUTION_STATE_OK) {
            throw new IllegalStateException("execution failed: " + r.status() + " " + r.outputs());
        }
    }

    static double p(double[] values, int percentile) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] s = values.clone();
        Arrays.sort(s);
        int i = (int) Math.ceil(percentile / 100.0 * s.length) - 1; // p0: the minimum
        return s[Math.max(0, Math.min(s.length - 1, i))];
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    private static long rss(long pid) throws Exception {
        return ProcStatus.read(pid).orElseThrow().rssBytes();
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (Exception e) {
            return "?";
        }
    }

    private static void deleteTree(Path p) {
        try (var s = Files.walk(p)) {
            s.sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        } catch (Exception e) {
            // a temporary directory
        }
    }
}
