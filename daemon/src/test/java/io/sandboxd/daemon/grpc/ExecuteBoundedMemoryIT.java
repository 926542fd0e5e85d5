package io.sandboxd.daemon.grpc;

import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** CONTRACT §1.4: 1 GiB of output through Execute with the daemon heap capped at 64 MiB. */
class ExecuteBoundedMemoryIT {
    @TempDir
    Path root;

    @Test
    void aGigabyteOfOutputComesBackAsHeadAndTailWithinTheLimit() throws Exception {
        try (JarDaemon d = JarDaemon.start(root.toRealPath(), List.of("-Xmx64m", "-XX:+UseSerialGC"))) {
            AtomicReference<Metadata> trailers = new AtomicReference<>();
            ProcessServiceGrpc.ProcessServiceBlockingStub stub = ProcessServiceGrpc.newBlockingStub(d.channel)
                    .withDeadlineAfter(300, TimeUnit.SECONDS)
                    .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(new AtomicReference<>(), trailers));
            ExecuteResponse r = stub.execute(ExecuteRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                    .addAllCommand(List.of("sh", "-c", "printf BEGIN; head -c 1G /dev/zero; printf END"))).build());
            long limit = 1024 * 1024;
            assertThat(r.getExitCode()).isZero();
            assertThat(r.getStdout().size()).isEqualTo(limit);
            assertThat(r.getStdout().substring(0, 5).toStringUtf8()).isEqualTo("BEGIN");
            assertThat(r.getStdout().substring((int) limit - 3).toStringUtf8()).isEqualTo("END");
            assertThat(trailers.get().get(ProcessServiceImpl.STDOUT_TRUNCATED))
                    .isEqualTo(Long.toString((1L << 30) + 8 - limit));
            // Still healthy and serving afterwards.
            assertThat(stub.execute(ExecuteRequest.newBuilder().setConfig(ProcessConfig.newBuilder()
                    .addCommand("true")).build()).getExitCode()).isZero();
            assertThat(d.process.isAlive()).isTrue();
        }
    }
}
