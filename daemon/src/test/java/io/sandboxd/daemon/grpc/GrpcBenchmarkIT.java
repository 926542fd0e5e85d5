package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measurements for the README (run on demand: {@code -Dsandboxd.bench=true}), against the
 * packaged jar with the launcher's JVM options. Prints numbers; asserts only correctness.
 */
class GrpcBenchmarkIT {
    static final List<String> LAUNCHER_OPTS =
            List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss256k", "-XX:MaxRAMPercentage=25");

    @TempDir
    Path root;

    static ProcessConfig cmd(String... argv) {
        return ProcessConfig.newBuilder().addAllCommand(List.of(argv)).build();
    }

    @Test
    void measure() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("sandboxd.bench"), "benchmarks run with -Dsandboxd.bench=true");
        try (RunningDaemon d = DaemonSpec.packagedJar()
                        .withRootDir(root.toRealPath())
                        .withJvmOptions(LAUNCHER_OPTS)
                        .withReadyTimeout(Duration.ofSeconds(60))
                        .start();
                DaemonChannel ch = DaemonChannel.to(d)) {
            ProcessServiceGrpc.ProcessServiceBlockingStub stub = ProcessServiceGrpc.newBlockingStub(ch.channel);
            Thread.sleep(2000);
            long idle = d.observer().rssBytes() / 1024;

            ExecuteRequest tru =
                    ExecuteRequest.newBuilder().setConfig(cmd("/bin/true")).build();
            for (int i = 0; i < 300; i++) {
                stub.withDeadlineAfter(30, TimeUnit.SECONDS).execute(tru);
            }
            int n = 1000;
            long[] ns = new long[n];
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                stub.withDeadlineAfter(30, TimeUnit.SECONDS).execute(tru);
                ns[i] = System.nanoTime() - t0;
            }
            Arrays.sort(ns);
            System.out.printf(
                    "BENCH execute(/bin/true) n=%d p50=%.2f ms p99=%.2f ms%n",
                    n, ns[n / 2] / 1e6, ns[n * 99 / 100] / 1e6);

            for (int run = 0; run < 3; run++) {
                long bytes = 0;
                long t0 = System.nanoTime();
                Iterator<StartResponse> it = stub.withDeadlineAfter(300, TimeUnit.SECONDS)
                        .start(StartRequest.newBuilder()
                                .setConfig(cmd("head", "-c", "1G", "/dev/zero"))
                                .build());
                int exit = -1;
                while (it.hasNext()) {
                    StartResponse r = it.next();
                    bytes += r.getStdout().size();
                    if (r.hasExit()) {
                        exit = r.getExit().getExitCode();
                    }
                }
                double s = (System.nanoTime() - t0) / 1e9;
                assertThat(bytes).isEqualTo(1L << 30);
                assertThat(exit).isZero();
                System.out.printf("BENCH start(head -c 1G /dev/zero) %.0f MB/s (%.2f s)%n", (1 << 30) / s / 1e6, s);
                long p0 = System.nanoTime();
                Process p = new ProcessBuilder("sh", "-c", "head -c 1G /dev/zero | cat > /dev/null").start();
                p.waitFor();
                double ps = (System.nanoTime() - p0) / 1e9;
                System.out.printf(
                        "BENCH shell(head -c 1G /dev/zero | cat > /dev/null) %.0f MB/s (%.2f s)%n",
                        (1 << 30) / ps / 1e6, ps);
            }

            List<StartCollector> live = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                StartCollector c = new StartCollector();
                ProcessServiceGrpc.newStub(ch.channel)
                        .withDeadlineAfter(300, TimeUnit.SECONDS)
                        .start(
                                StartRequest.newBuilder()
                                        .setConfig(cmd("sh", "-c", "echo up; exec sleep 120"))
                                        .build(),
                                c);
                live.add(c);
            }
            for (StartCollector c : live) {
                Poll.until(Duration.ofSeconds(60), () -> c.stdout().equals("up\n"));
                assertThat(c.stdout()).isEqualTo("up\n");
            }
            Thread.sleep(1000);
            long busy = d.observer().rssBytes() / 1024;
            System.out.printf(
                    "BENCH rss idle=%d MiB, with 500 live streams=%d MiB (after the runs above)%n",
                    idle / 1024, busy / 1024);
        }
    }
}
