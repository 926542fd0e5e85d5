package io.sandboxd.router.grpc;

import static io.sandboxd.router.grpc.ProcessCalls.channel;
import static io.sandboxd.router.grpc.ProcessCalls.execute;
import static io.sandboxd.router.grpc.ProcessCalls.routed;

import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.router.testing.RouterProcess;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A measurement run by hand (not a test): sequential Execute latency straight to the daemon and
 * through the router (its own JVM), alternating rounds so drift on a shared machine hits both, plus
 * the router's RSS idle and after the load. Usage, from the repository root:
 * <pre>
 * ./mvnw -B -q -pl router -am -DskipTests package dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/router-cp.txt -Dmdep.includeScope=test
 * java -Dsandboxd.jar=daemon/target/sandboxd.jar \
 *     -cp "router/target/test-classes:router/target/classes:$(cat /tmp/router-cp.txt)" \
 *     io.sandboxd.router.grpc.ExecuteLatencyMeasurement [calls, 2000] [rounds, 3]
 * </pre>
 */
public final class ExecuteLatencyMeasurement {
    private ExecuteLatencyMeasurement() {}

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        try (RunningDaemon daemon = DaemonSpec.packagedJar()
                        .withRootDir(Files.createTempDirectory("router-latency"))
                        .start();
                RouterProcess router =
                        RouterProcess.start(List.of(), "--cache-enabled=false", "--allow-loopback-pod-ip")) {
            ManagedChannel directCh = channel(daemon.grpcPort());
            ManagedChannel routerCh = channel(router.port);
            Channel viaRouter = routed(routerCh, daemon.grpcPort());
            ExecuteRequest req = execute("true");
            System.out.printf(Locale.ROOT, "router RSS idle: %d MiB%n", router.statusKib("VmRSS") / 1024);
            run(directCh, req, 1000);
            run(viaRouter, req, 1000);
            for (int r = 1; r <= rounds; r++) {
                long[] d = run(directCh, req, calls);
                long[] v = run(viaRouter, req, calls);
                System.out.printf(
                        Locale.ROOT,
                        "round %d: Execute direct p50 %.3f ms p99 %.3f ms | via router p50 %.3f ms p99 %.3f ms"
                                + " | router adds p50 %.3f ms%n",
                        r,
                        ms(d, 0.50),
                        ms(d, 0.99),
                        ms(v, 0.50),
                        ms(v, 0.99),
                        ms(v, 0.50) - ms(d, 0.50));
            }
            System.out.printf(
                    Locale.ROOT,
                    "router RSS after the load: %d MiB (peak %d MiB)%n",
                    router.statusKib("VmRSS") / 1024,
                    router.statusKib("VmHWM") / 1024);
            directCh.shutdownNow();
            routerCh.shutdownNow();
        }
    }

    private static long[] run(Channel ch, ExecuteRequest req, int calls) {
        var stub = ProcessServiceGrpc.newBlockingStub(ch);
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            stub.withDeadlineAfter(30, TimeUnit.SECONDS).execute(req);
            nanos[i] = System.nanoTime() - t0;
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static double ms(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
    }
}
