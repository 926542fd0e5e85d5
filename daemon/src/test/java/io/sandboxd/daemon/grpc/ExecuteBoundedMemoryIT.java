package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** runtime-contract §1.4: 1 GiB of output through Execute with the daemon heap capped at 64 MiB. */
class ExecuteBoundedMemoryIT {
    @TempDir
    Path root;

    @Test
    void aGigabyteOfOutputComesBackAsHeadAndTailWithinTheLimit() throws Exception {
        try (RunningDaemon d = DaemonSpec.packagedJar()
                        .withRootDir(root.toRealPath())
                        .withJvmOptions("-Xmx64m", "-XX:+UseSerialGC")
                        .withReadyTimeout(Duration.ofSeconds(60))
                        .start();
                DaemonChannel ch = DaemonChannel.to(d)) {
            AtomicReference<Metadata> trailers = new AtomicReference<>();
            ProcessServiceGrpc.ProcessServiceBlockingStub stub = ProcessServiceGrpc.newBlockingStub(ch.channel)
                    .withDeadlineAfter(300, TimeUnit.SECONDS)
                    .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(new AtomicReference<>(), trailers));
            ExecuteResponse r = stub.execute(ExecuteRequest.newBuilder()
                    .setConfig(ProcessConfig.newBuilder()
                            .addAllCommand(List.of("sh", "-c", "printf BEGIN; head -c 1G /dev/zero; printf END")))
                    .build());
            long limit = 1024 * 1024;
            assertThat(r.getExitCode()).isZero();
            assertThat(r.getStdout().size()).isEqualTo(limit);
            assertThat(r.getStdout().substring(0, 5).toStringUtf8()).isEqualTo("BEGIN");
            assertThat(r.getStdout().substring((int) limit - 3).toStringUtf8()).isEqualTo("END");
            assertThat(trailers.get().get(ProcessServiceImpl.STDOUT_TRUNCATED))
                    .isEqualTo(Long.toString((1L << 30) + 8 - limit));
            // A background child that keeps writing after the leader exited: the response comes
            // within the grace and nothing buffers its output (the JDK's own drain included).
            ExecuteResponse bg = stub.execute(ExecuteRequest.newBuilder()
                    .setConfig(ProcessConfig.newBuilder()
                            .addAllCommand(List.of("sh", "-c", "yes & sleep 0.3; echo leader-done 1>&2")))
                    .build());
            assertThat(bg.getExitCode()).isZero();
            assertThat(bg.getStderr().toStringUtf8()).isEqualTo("leader-done\n");
            assertThat(bg.getStdout().size()).isEqualTo(limit);
            long t0 = System.nanoTime();
            java.util.Iterator<io.sandboxd.api.process.v1.StartResponse> it = ProcessServiceGrpc.newBlockingStub(
                            ch.channel)
                    .withDeadlineAfter(120, TimeUnit.SECONDS)
                    .start(io.sandboxd.api.process.v1.StartRequest.newBuilder()
                            .setConfig(ProcessConfig.newBuilder()
                                    .addAllCommand(List.of("sh", "-c", "yes & sleep 0.3; exit 4")))
                            .build());
            int exit = -1;
            while (it.hasNext()) {
                io.sandboxd.api.process.v1.StartResponse ev = it.next();
                if (ev.hasExit()) {
                    exit = ev.getExit().getExitCode();
                }
            }
            assertThat(exit).isEqualTo(4);
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(60_000);
            // Still healthy and serving afterwards.
            assertThat(stub.execute(ExecuteRequest.newBuilder()
                                    .setConfig(ProcessConfig.newBuilder().addCommand("true"))
                                    .build())
                            .getExitCode())
                    .isZero();
            assertThat(d.isAlive()).isTrue();
        }
    }
}
