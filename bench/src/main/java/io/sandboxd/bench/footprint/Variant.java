package io.sandboxd.bench.footprint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A named configuration: extra JVM options and environment variables, of our daemon or, when
 * {@code floor} is not null, of that framework floor instead.
 */
record Variant(String name, List<String> jvmOptions, Map<String, String> env, Floor floor) {
    Variant(String name, List<String> jvmOptions, Map<String, String> env) {
        this(name, jvmOptions, env, null);
    }

    static Variant of(Floor floor) {
        return new Variant(floor.variantName(), List.of(), Map.of(), floor);
    }

    /** Answers Execute (our daemon and the floors that speak gRPC). */
    boolean speaksGrpc() {
        return floor == null || floor.speaksGrpc;
    }

    /** {@code NAME=SPEC}: SPEC's words starting with '-' are JVM options, KEY=VALUE words environment. */
    static Variant parse(String arg) {
        int eq = arg.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("--variant needs NAME=SPEC, got '" + arg + "'");
        }
        List<String> opts = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        for (String w : arg.substring(eq + 1).trim().split("\\s+")) {
            if (w.isEmpty()) {
                continue;
            }
            int e = w.indexOf('=');
            if (w.startsWith("-")) {
                opts.add(w);
            } else if (e > 0 && w.substring(0, e).matches("[A-Za-z_][A-Za-z0-9_]*")) {
                env.put(w.substring(0, e), w.substring(e + 1));
            } else {
                throw new IllegalArgumentException(
                        "variant " + arg.substring(0, eq) + ": '" + w + "' is neither a JVM option nor KEY=VALUE");
            }
        }
        return new Variant(arg.substring(0, eq), List.copyOf(opts), Map.copyOf(env));
    }
}
