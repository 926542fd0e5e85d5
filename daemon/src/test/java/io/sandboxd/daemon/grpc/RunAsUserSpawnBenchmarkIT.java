package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code --run-as-user} costs a spawn (run on demand: {@code -Dsandboxd.bench=true}):
 * Execute of /bin/true, 2,000 calls after 500 of warm-up, from this JVM against the packaged
 * daemon with the launcher's JVM options, alternating the two modes three times.
 */
class RunAsUserSpawnBenchmarkIT {
    static final List<String> LAUNCHER_OPTS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss256k");

    @TempDir
    Path root;

    @Test
    void spawnLatencyWithAndWithoutRunAsUser() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("sandboxd.bench"), "benchmarks run with -Dsandboxd.bench=true");
        for (int round = 0; round < 3; round++) {
            for (boolean runAs : new boolean[] {false, true}) {
                String[] args = runAs ? new String[] {"--run-as-user", "65534:65534"} : new String[0];
                try (RunningDaemon d = DaemonSpec.packagedJar()
                                .withRootDir(root.toRealPath())
                                .withJvmOptions(LAUNCHER_OPTS)
                                .withArgs(args)
                                .withReadyTimeout(Duration.ofSeconds(60))
                                .start();
                        DaemonChannel ch = DaemonChannel.to(d)) {
                    ProcessServiceGrpc.ProcessServiceBlockingStub stub = ProcessServiceGrpc.newBlockingStub(ch.channel);
                    ExecuteRequest tru = ExecuteRequest.newBuilder()
                            .setConfig(ProcessConfig.newBuilder().addCommand("/bin/true"))
                            .build();
                    for (int i = 0; i < 500; i++) {
                        stub.withDeadlineAfter(30, TimeUnit.SECONDS).execute(tru);
                    }
                    int n = 2000;
                    long[] ns = new long[n];
                    for (int i = 0; i < n; i++) {
                        long t0 = System.nanoTime();
                        assertThat(stub.withDeadlineAfter(30, TimeUnit.SECONDS)
                                        .execute(tru)
                                        .getExitCode())
                                .isZero();
                        ns[i] = System.nanoTime() - t0;
                    }
                    Arrays.sort(ns);
                    System.out.printf(
                            "BENCH execute(/bin/true) %s n=%d p50=%.3f ms p90=%.3f ms p99=%.3f ms%n",
                            runAs ? "--run-as-user 65534" : "same uid           ",
                            n,
                            ns[n / 2] / 1e6,
                            ns[n * 9 / 10] / 1e6,
                            ns[n * 99 / 100] / 1e6);
                }
            }
        }
    }
}
