package io.sandboxd.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark's own JVM is a client on the same cores as the runtime it measures. With the
 * default tiered compilers its C2 thread keeps compiling gRPC/Netty code for tens of seconds
 * (about 20 % of a core during a 4,000-call Execute run here, 5,000 calls after start) and a
 * latency-sensitive wake-up that lands behind it waits for the next scheduler tick: that, not the
 * runtime, was most of Execute's p99 (8 ms with a C2 client, 2 ms with this one; traced with
 * {@code perf sched}). A Go, Python or TypeScript SDK has no such background compiler, so
 * {@code main} re-runs the benchmark in a JVM with C1 only (it compiles the client in the first
 * few hundred calls and then stays quiet) and the serial collector (no concurrent GC threads).
 *
 * <p>The controller benchmark's API stand-in runs in the benchmark's JVM too, on the cores the
 * controller it serves waits for. It runs with Shenandoah where the JDK has it, else G1 ({@link
 * #forApiStandIn}): its store and watch history hold hundreds of MiB that young collections copy.
 * The serial collector paused it for 70-170 ms at a time (measured 2026-12-03), and G1 for 100-210
 * ms once or twice in every measured burst of 1,000 claims, with a 5 ms goal too (measured
 * 2026-12-04): each pause was charged to the controller's latency. Shenandoah's pauses stayed
 * under 1 ms, as a Go API server's do. And with both
 * compilers: after one short warm-up C2 was still 40 % of that JVM's CPU samples in the measured
 * burst, so it ran with C1 only for a while; since the benchmark warms up in six rounds of 1,000
 * claims C2 has finished by then, and the stand-in took 2.1-2.4 ms of CPU per warm claim instead of
 * 2.7-3.6 with C1 only (measured 2026-12-04).
 */
public final class ClientJvm {
    static final String RELAUNCHED = "sandboxd.bench.relaunched";
    /** Set to "keep" to measure with the JVM as started (e.g. to see the difference). */
    static final String KEEP_ENV = "SANDBOXD_BENCH_CLIENT_JVM";

    /** For a client: C1 only, no concurrent GC threads. */
    static final List<String> FOR_CLIENT = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    /** For the controller benchmark's API stand-in where the JDK has Shenandoah: pauses under 1 ms. */
    static final List<String> FOR_API_STAND_IN = List.of("-XX:+UseShenandoahGC");
    /** For the stand-in on a JDK built without Shenandoah (Oracle's): G1, both compilers. */
    static final List<String> FOR_API_STAND_IN_WITHOUT_SHENANDOAH = List.of("-XX:+UseG1GC");

    private ClientJvm() {}

    /** False in the relaunched JVM, or when asked to measure with this one as it is. */
    static boolean mayRelaunch() {
        return !Boolean.getBoolean(RELAUNCHED) && !"keep".equals(System.getenv(KEEP_ENV));
    }

    /** True unless this JVM already runs with {@code options} or was asked to stay as it is. */
    static boolean shouldRelaunch(List<String> options) {
        return mayRelaunch()
                && !ManagementFactory.getRuntimeMXBean().getInputArguments().containsAll(options);
    }

    /** The stand-in's options for this JDK: asks its java whether it starts with Shenandoah. */
    static List<String> forApiStandIn() {
        return starts(FOR_API_STAND_IN.get(0)) ? FOR_API_STAND_IN : FOR_API_STAND_IN_WITHOUT_SHENANDOAH;
    }

    /** Whether this JDK's java starts with {@code option} (a build without a collector refuses its flag). */
    static boolean starts(String option) {
        try {
            Process p = new ProcessBuilder(javaBinary(), option, "-version")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** This JDK's {@code java}. */
    public static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** One line for the report: which client JVM measured. */
    public static String describe() {
        List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments();
        String jit = args.contains("-XX:TieredStopAtLevel=1") ? "C1 only" : "tiered C1+C2";
        String gc = ManagementFactory.getGarbageCollectorMXBeans().get(0).getName();
        return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " (" + jit + ", "
                + gc + ")";
    }

    static List<String> command(String[] args, List<String> options) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-XX:TieredStopAtLevel") && !a.matches("-XX:[+-]Use\\w+GC")) {
                cmd.add(a); // keeps e.g. -Xmx or -D options the user gave
            }
        }
        cmd.addAll(options);
        cmd.add("-D" + RELAUNCHED + "=true");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchMain.class.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Runs the benchmark in the relaunched JVM, sharing this terminal; returns its exit code. */
    static int relaunch(String[] args, List<String> options) throws Exception {
        Process p = new ProcessBuilder(command(args, options)).inheritIO().start();
        Thread stop = new Thread(() -> {
            p.destroy(); // SIGTERM: the child's own hooks stop the daemon it started
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Runtime.getRuntime().addShutdownHook(stop);
        int rc = p.waitFor();
        Runtime.getRuntime().removeShutdownHook(stop);
        return rc;
    }
}
