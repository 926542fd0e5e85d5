package io.sandboxd.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** Command-line options; sizes and repetitions depend on {@code --quick}. */
final class BenchOptions {
    static final String USAGE = """
            usage: java -jar sandboxd-bench.jar (--grpc HOST:PORT --rest http://HOST:PORT | --start-daemon LAUNCHER|JAR)
                   [--quick] [--json OUT.json] [--baseline FILE --max-regression 3]
                   [--jvm-opts "OPTS"] [--token TOKEN] [--work-dir DIR] [--only SECTIONS] [--size BYTES] [--streams N] [--window-ms MS]
              --grpc / --rest      benchmark an already running runtime (ours or another vendor's)
              --start-daemon X     start our daemon from the launcher script X (e.g. ./sandboxd) or from a jar
                                   (with --jvm-opts), also measuring startup, RSS and threads
              --quick              64 MiB instead of 1 GiB, 200 streams, few repetitions (the CI guard; < 60 s idle)
              --json FILE          also write every figure as JSON
              --baseline FILE      compare with a JSON written earlier; exit 1 if a guarded ratio got worse
                                   by more than --max-regression (default 3) or a correctness check failed
              --only SECTIONS      comma list of: startup,execute,stream,files,streams (default: all)
            or:    java -jar sandboxd-bench.jar router [options]   the router benchmark (router --help lists its options)
            or:    java -jar sandboxd-bench.jar footprint --start-daemon ./sandboxd|JAR [--variant NAME=SPEC]... [--starts N]
                                                     [--target-address HOST:PORT --target-pid PID] [--json FILE]
                                                     cold starts, idle smaps breakdown, CPU per call cold vs warm
            or:    java -jar sandboxd-bench.jar listing --jar NAME=JAR [--jar NAME=JAR]... [--entries N] [--rounds N]
                                                     listing throughput of one large directory, jars interleaved
            or:    java -jar sandboxd-bench.jar durable [options]  durable processes (durable --help lists its options)
            or:    java -jar sandboxd-bench.jar code --start-daemon JAR [--cold N] [--round-trips N] [--image-mb MB]
                                                     code contexts vs the kernel driven by jupyter_client
            """;
    static final Set<String> SECTIONS = Set.of("startup", "execute", "stream", "files", "streams");

    String grpc;
    String rest;
    String startDaemon;
    List<String> jvmOpts = new ArrayList<>(List.of(
            "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss256k", "-XX:MaxRAMPercentage=25", "-Xshare:auto"));
    boolean quick;
    Path json;
    Path baseline;
    double maxRegression = 3.0;
    String token;
    Path workDir;
    Set<String> only = SECTIONS;
    Long size;
    Integer streams;
    Long windowMs;

    static BenchOptions parse(String[] args) {
        BenchOptions o = new BenchOptions();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                v = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            switch (a) {
                case "--quick" -> o.quick = true;
                case "--help", "-h" -> throw new IllegalArgumentException("");
                default -> {
                    if (v == null) {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException(a + " needs a value");
                        }
                        v = args[++i];
                    }
                    switch (a) {
                        case "--grpc" -> o.grpc = v;
                        case "--rest" -> o.rest = v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
                        case "--start-daemon" -> o.startDaemon = v;
                        case "--jvm-opts" ->
                            o.jvmOpts = Arrays.stream(v.trim().split("\\s+"))
                                    .filter(s -> !s.isEmpty())
                                    .toList();
                        case "--json" -> o.json = Path.of(v);
                        case "--baseline" -> o.baseline = Path.of(v);
                        case "--max-regression" -> o.maxRegression = Double.parseDouble(v);
                        case "--token" -> o.token = v;
                        case "--work-dir" -> o.workDir = Path.of(v);
                        case "--size" -> o.size = Long.parseLong(v);
                        case "--streams" -> o.streams = Integer.parseInt(v);
                        case "--window-ms" -> o.windowMs = Long.parseLong(v);
                        case "--only" -> {
                            o.only = Set.of(v.split(","));
                            for (String s : o.only) {
                                if (!SECTIONS.contains(s)) {
                                    throw new IllegalArgumentException("unknown section " + s);
                                }
                            }
                        }
                        default -> throw new IllegalArgumentException("unknown option " + a);
                    }
                }
            }
        }
        if (o.startDaemon == null && (o.grpc == null || o.rest == null)) {
            throw new IllegalArgumentException("give --grpc and --rest, or --start-daemon");
        }
        if (o.maxRegression <= 1) {
            throw new IllegalArgumentException("--max-regression must be > 1");
        }
        return o;
    }

    /** A copy that runs only the given sections and neither writes JSON nor compares. */
    BenchOptions only(Set<String> sections) {
        BenchOptions c = new BenchOptions();
        c.grpc = grpc;
        c.rest = rest;
        c.startDaemon = startDaemon;
        c.jvmOpts = jvmOpts;
        c.quick = quick;
        c.token = token;
        c.size = size;
        c.streams = streams;
        c.windowMs = windowMs;
        c.only = Set.copyOf(sections);
        return c;
    }

    long bigBytes() {
        return size != null ? size : quick ? 64L << 20 : 1L << 30;
    }

    int executeN() {
        return quick ? 60 : 2000;
    }

    /**
     * Calls before Execute latency is sampled. The client is a JVM started for the run: with 100
     * warm-up calls its own JIT was still compiling and the median was 2.6-2.75 ms where the same
     * daemon answered in 1.5 ms after 1,000 (measured; the C spawn floor needs no warm-up).
     */
    int executeWarmup() {
        return quick ? 200 : 1000;
    }

    int windows() {
        return quick ? 3 : 7;
    }

    long windowMs() {
        return windowMs != null ? windowMs : quick ? 500 : 2000;
    }

    int bigRuns() {
        return quick ? 3 : 5;
    }

    int concurrentStreams() {
        return streams != null ? streams : quick ? 200 : 1000;
    }

    int startupRuns() {
        return quick ? 3 : 7;
    }

    long settleMs() {
        return quick ? 1000 : 2000;
    }
}
