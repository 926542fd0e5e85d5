package io.sandboxd.bench.listing;

import io.sandboxd.bench.IntOption;
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
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Listing throughput of one large directory (issue 21: what the JSON writer costs), for one or more
 * daemon jars in the same run over the same directory, interleaved request by request (the order
 * flips every round so that neither jar always goes first): {@code GET /v1/files/<dir>} (upstream's
 * listing) and {@code GET fs/list?path=<dir>} (the deep listing, one page). Each daemon runs with the
 * launcher's JVM options ({@code daemon/jvm.options}, or {@code --jvm-opts}). Prints entries per
 * second (median and p90 of the requests' times) and each jar's ratio to the first; with the load
 * average before and after.
 *
 * <pre>sandboxd-bench listing --jar A=old.jar --jar B=daemon/target/sandboxd.jar [--entries 20000]
 *     [--rounds 30] [--warmup 40] [--jvm-opts "OPTS"]</pre>
 */
public final class ListingBenchmark {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String USAGE = "usage: sandboxd-bench listing --jar NAME=SANDBOXD_JAR [--jar NAME=JAR]..."
            + " [--entries N (20000)] [--rounds N (30)] [--warmup N (40)] [--jvm-opts \"OPTS\"]";

    private ListingBenchmark() {}

    public static int run(String[] args) {
        return run(args, System.out);
    }

    static int run(String[] args, PrintStream out) {
        Map<String, Path> jars = new LinkedHashMap<>();
        int entries = 20_000;
        int rounds = 30;
        int warmup = 40;
        List<String> jvmOpts = null;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a.startsWith("--") ? a + " needs a value" : "");
                }
                String v = args[++i];
                switch (a) {
                    case "--jar" -> {
                        int eq = v.indexOf('=');
                        if (eq <= 0 || jars.put(v.substring(0, eq), Path.of(v.substring(eq + 1))) != null) {
                            throw new IllegalArgumentException("--jar needs a new NAME=JAR, got '" + v + "'");
                        }
                    }
                    case "--entries" -> entries = IntOption.bounded(a, v, 1, 1_000_000);
                    case "--rounds" -> rounds = IntOption.bounded(a, v, 1, 10_000);
                    case "--warmup" -> warmup = IntOption.bounded(a, v, 0, 100_000);
                    case "--jvm-opts" ->
                        jvmOpts = Arrays.stream(v.trim().split("\\s+"))
                                .filter(s -> !s.isEmpty())
                                .toList();
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (jars.isEmpty()) {
                throw new IllegalArgumentException("give at least one --jar NAME=JAR");
            }
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("sandboxd-bench listing: " + e.getMessage());
            }
            System.err.println(USAGE);
            return 2;
        }
        try {
            measure(jars, entries, rounds, warmup, jvmOpts != null ? jvmOpts : launcherOptions(), out);
            return 0;
        } catch (Exception e) {
            e.printStackTrace(out);
            return 1;
        }
    }

    private static void measure(
            Map<String, Path> jars, int entries, int rounds, int warmup, List<String> jvmOpts, PrintStream out)
            throws Exception {
        Path work = Files.createTempDirectory("sandboxd-bench-listing-");
        Path root = Files.createDirectories(work.resolve("root"));
        Path big = Files.createDirectories(root.resolve("big"));
        byte[] content = new byte[100];
        for (int i = 0; i < entries; i++) {
            content[0] = (byte) i;
            Files.write(big.resolve(String.format("file-%07d-with-a-typical-length.txt", i)), content);
        }
        List<String> names = new ArrayList<>(jars.keySet());
        List<RunningDaemon> daemons = new ArrayList<>();
        List<RawHttp> conns = new ArrayList<>();
        Map<String, List<Double>> flat = new LinkedHashMap<>();
        Map<String, List<Double>> deep = new LinkedHashMap<>();
        RawRequest flatGet = RawRequest.of("GET", "/v1/files/big");
        RawRequest deepGet = RawRequest.of("GET", "/sandboxd/v1alpha1/fs/list?path=big&depth=1&limit=" + entries);
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).strip();
        try {
            for (String n : names) {
                RunningDaemon d = DaemonSpec.jar(jars.get(n))
                        .withJvmOptions(jvmOpts)
                        .withRootDir(root)
                        .withLogs(work, "daemon-" + n)
                        .withReadyTimeout(Duration.ofSeconds(60))
                        .start();
                daemons.add(d);
                conns.add(RawHttp.connect(URI.create(d.restBase()), TIMEOUT));
                flat.put(n, new ArrayList<>());
                deep.put(n, new ArrayList<>());
            }
            for (int r = -warmup; r < rounds; r++) {
                for (int k = 0; k < names.size(); k++) {
                    int i = (r & 1) == 0 ? k : names.size() - 1 - k;
                    double f = timed(conns.get(i), flatGet);
                    double t = timed(conns.get(i), deepGet);
                    if (r >= 0) {
                        flat.get(names.get(i)).add(f);
                        deep.get(names.get(i)).add(t);
                    }
                }
            }
        } finally {
            for (RawHttp c : conns) {
                c.close();
            }
            for (RunningDaemon d : daemons) {
                d.close();
            }
            new ProcessBuilder("rm", "-rf", work.toString()).start().waitFor();
        }
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).strip();
        out.printf(
                "listing benchmark: one directory of %d entries, %d rounds after %d warm-up rounds, daemons"
                        + " interleaved; entries/s from request times (median, p90 = slowest tenth)%n",
                entries, rounds, warmup);
        out.printf("%-12s %-28s %12s %12s %8s%n", "daemon", "request", "median/s", "p90/s", "vs " + names.get(0));
        for (String what : List.of("GET /v1/files/big", "GET fs/list depth 1")) {
            Map<String, List<Double>> m = what.startsWith("GET /v1") ? flat : deep;
            double first = median(m.get(names.get(0)));
            for (String n : names) {
                double med = median(m.get(n));
                out.printf(
                        "%-12s %-28s %12.0f %12.0f %8.3f%n",
                        n, what, entries / med, entries / p90(m.get(n)), first / med);
            }
        }
        out.printf("JVM options: %s%n", String.join(" ", jvmOpts));
        out.printf(
                "load average before: %s; after: %s; cpus %d%n",
                loadBefore, loadAfter, Runtime.getRuntime().availableProcessors());
    }

    /** Seconds for one request, the body read to the end (counted, not kept). */
    private static double timed(RawHttp conn, RawRequest request) throws IOException {
        long t0 = System.nanoTime();
        RawResponse r = conn.send(request).read(false, OutputStream.nullOutputStream());
        double s = (System.nanoTime() - t0) / 1e9;
        if (r.status() != 200) {
            throw new IOException(request + ": " + r.statusLine());
        }
        return s;
    }

    /** The options ./sandboxd and the image start the daemon with: the one list in daemon/jvm.options. */
    private static List<String> launcherOptions() throws IOException {
        List<String> opts = new ArrayList<>();
        for (String line : Files.readAllLines(DaemonSpec.repoRoot().resolve("daemon/jvm.options"))) {
            int hash = line.indexOf('#');
            String l = hash >= 0 ? line.substring(0, hash) : line;
            for (String w : l.trim().split("\\s+")) {
                if (!w.isEmpty()) {
                    opts.add(w);
                }
            }
        }
        return opts;
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(Comparator.naturalOrder());
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    /** The time 90 % of the requests beat: as throughput, the slow tail. */
    static double p90(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(Comparator.naturalOrder());
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(s.size() * 0.9) - 1));
    }
}
