package io.sandboxd.bench.footprint;

import java.util.List;
import java.util.Locale;

/**
 * The framework floors of issue 22 ({@code io.sandboxd.bench.floor}, run from {@code
 * sandboxd-floors.jar}): what a daemon built on the same JVM options and frameworks pays before
 * any code of its own.
 */
enum Floor {
    /** The JDK alone: REST health from a ServerSocket; the gRPC port only accepts. */
    JDK("JdkFloor", false, true),
    /** netty-codec-http REST and grpc-netty on one event-loop group. */
    NETTY("NettyFloor", true, true),
    /** Jetty 12's core server (no Javalin, no servlets) and grpc-netty. */
    JETTY("JettyFloor", true, true),
    /** Javalin/Jetty REST as the daemon configures it, and grpc-netty. */
    JAVALIN("JavalinFloor", true, true),
    /** {@link #JAVALIN} plus logback (LogSetup) and a Micrometer Prometheus registry. */
    JAVALIN_OBSERVED("ObservedJavalinFloor", true, false);

    /** SLF4J's no-op provider, named so SLF4J neither scans for nor warns about a missing binding. */
    private static final String NOP_LOGGING = "-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider";

    /**
     * The library settings the daemon's {@code Main.defaultSystemProperties} makes before any
     * library class initialises, so the floors pay what the daemon pays: no Netty JFR events
     * (~50 ms, ~1.7 MiB), no leak detector, unpooled buffers, and Jetty's cache-line padding
     * given (else Jetty's {@code MemoryUtils} starts the platform MBean server: ~200 classes).
     */
    static final List<String> DAEMON_LIBRARY_SETTINGS = List.of(
            "-Dio.netty.jfr.enabled=false",
            "-Dio.netty.leakDetection.level=disabled",
            "-Dio.netty.allocator.type=unpooled",
            "-Dorg.eclipse.jetty.util.referencesPerCacheLine=16");

    final String mainClass;
    /** Answers the daemon's gRPC calls (Execute, Start); the JDK floor does not. */
    final boolean speaksGrpc;

    private final boolean nopLogging;

    Floor(String simpleName, boolean speaksGrpc, boolean nopLogging) {
        this.mainClass = "io.sandboxd.bench.floor." + simpleName;
        this.speaksGrpc = speaksGrpc;
        this.nopLogging = nopLogging;
    }

    /** {@code jdk}, {@code netty}, {@code javalin}, {@code javalin-observed}. */
    String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The variant name in reports. */
    String variantName() {
        return "floor-" + cliName();
    }

    /** Options of this floor on top of the daemon's jvm.options. */
    List<String> jvmOptions() {
        List<String> opts = new java.util.ArrayList<>(DAEMON_LIBRARY_SETTINGS);
        if (nopLogging) {
            opts.add(NOP_LOGGING);
        }
        return opts;
    }

    static Floor parse(String cliName) {
        for (Floor f : values()) {
            if (f.cliName().equals(cliName)) {
                return f;
            }
        }
        throw new IllegalArgumentException(
                "--floor: unknown floor '" + cliName + "' (jdk, netty, jetty, javalin, javalin-observed)");
    }
}
