package io.sandboxd.bench.footprint;

import io.sandboxd.bench.IntOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The footprint mode's command line; every count is bounded and a bad value names its option. */
final class Options {
    String launch;
    List<String> jvmOpts = List.of();
    final List<Variant> variants = new ArrayList<>();
    int starts = 10;
    int calls = 100;
    int warmCalls = 1000;
    long idleMs = 2000;
    String targetAddress;
    long targetPid = -1;
    String token;
    Path json;
    Path baseline;
    double maxRegression = 3.0;
    /** Framework floors started in turn with our daemon's variants (each also one of {@link #variants}). */
    final List<Floor> floors = new ArrayList<>();

    Path floorsJar;
    Path jvmOptionsFile;
    int classCountStarts;
    int streams;

    static Options parse(String[] args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                throw new IllegalArgumentException("help");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--start-daemon" -> o.launch = v;
                case "--jvm-opts" ->
                    o.jvmOpts = Arrays.stream(v.trim().split("\\s+"))
                            .filter(s -> !s.isEmpty())
                            .toList();
                case "--variant" -> o.variants.add(Variant.parse(v));
                case "--starts" -> o.starts = IntOption.bounded(a, v, 1, 1000);
                case "--calls" -> o.calls = IntOption.bounded(a, v, 1, 100_000);
                case "--warm-calls" -> o.warmCalls = IntOption.bounded(a, v, 0, 1_000_000);
                case "--idle-ms" -> o.idleMs = IntOption.bounded(a, v, 0, 600_000);
                case "--target-address" -> o.targetAddress = v;
                case "--target-pid" -> o.targetPid = IntOption.bounded(a, v, 1, Integer.MAX_VALUE);
                case "--floor" -> o.floors.add(Floor.parse(v));
                case "--floors-jar" -> o.floorsJar = Path.of(v);
                case "--jvm-options-file" -> o.jvmOptionsFile = Path.of(v);
                case "--class-counts" -> o.classCountStarts = IntOption.bounded(a, v, 0, 1);
                case "--streams" -> o.streams = IntOption.bounded(a, v, 0, 10_000);
                case "--token" -> o.token = v;
                case "--json" -> o.json = Path.of(v);
                case "--baseline" -> o.baseline = Path.of(v);
                case "--max-regression" -> {
                    try {
                        o.maxRegression = Double.parseDouble(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--max-regression needs a number, got '" + v + "'");
                    }
                    if (!(o.maxRegression > 1)) {
                        throw new IllegalArgumentException("--max-regression must be > 1, got " + v);
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (o.launch == null && o.targetAddress == null) {
            throw new IllegalArgumentException("give --start-daemon, or --target-address with --target-pid");
        }
        if ((o.targetAddress == null) != (o.targetPid < 0)) {
            throw new IllegalArgumentException("--target-address and --target-pid go together");
        }
        if (o.baseline != null && o.launch == null) {
            throw new IllegalArgumentException("--baseline guards our daemon's figures: give --start-daemon");
        }
        if (o.variants.isEmpty()) {
            o.variants.add(new Variant("default", List.of(), Map.of()));
        }
        if (!o.floors.isEmpty()) {
            if (o.launch == null) {
                throw new IllegalArgumentException("--floor is measured in turn with our daemon: give --start-daemon");
            }
            if (o.jvmOptionsFile == null && !o.launch.endsWith(".jar")) {
                // the launcher's own list: ./sandboxd reads daemon/jvm.options beside it
                o.jvmOptionsFile =
                        Path.of(o.launch).toAbsolutePath().getParent().resolve("daemon/jvm.options");
            }
            if (o.jvmOptionsFile == null) {
                throw new IllegalArgumentException("--floor with a jar: give --jvm-options-file (daemon/jvm.options)");
            }
            for (Floor f : o.floors) {
                o.variants.add(Variant.of(f));
            }
        }
        Set<String> names = new HashSet<>();
        for (Variant v : o.variants) {
            if (!names.add(v.name())) {
                throw new IllegalArgumentException("two variants named " + v.name());
            }
        }
        return o;
    }

    /** Rounds: each starts every variant once (and measures the target once). */
    int rounds() {
        return starts;
    }

    /** The base JVM options (only a jar takes them; the launcher script reads daemon/jvm.options). */
    List<String> jarOpts() {
        return launch != null && launch.endsWith(".jar") ? jvmOpts : List.of();
    }
}
