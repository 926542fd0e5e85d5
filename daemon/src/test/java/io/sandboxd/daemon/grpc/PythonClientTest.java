package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An independent client: Debian's python3-grpcio (src/test/python/process_client.py) runs
 * Execute, Start, WriteStdin and a PTY Start against the daemon. Skips only when
 * /usr/bin/python3 lacks grpc / grpc_tools; .ci/run installs them, so CI never skips.
 */
class PythonClientTest {
    static final Path PYTHON = Path.of("/usr/bin/python3");

    @TempDir
    Path tmp;

    @Test
    void debianPythonGrpcioTalksToTheDaemon() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(PYTHON), "no /usr/bin/python3");
        Process probe = new ProcessBuilder(PYTHON.toString(), "-c", "import grpc, grpc_tools.protoc")
                .redirectErrorStream(true)
                .start();
        Assumptions.assumeTrue(
                probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0,
                "python3-grpcio / python3-grpc-tools not installed");
        Path repo = Path.of(System.getProperty("sandboxd.repoRoot", "..")).toAbsolutePath();
        Path script = repo.resolve("daemon/src/test/python/process_client.py");
        Path proto = repo.resolve("proto");
        try (GrpcDaemon d = GrpcDaemon.start(tmp)) {
            Process p = new ProcessBuilder(
                            PYTHON.toString(), script.toString(), "127.0.0.1:" + d.daemon.grpcPort(), proto.toString())
                    .redirectErrorStream(true)
                    .start();
            boolean done = p.waitFor(120, TimeUnit.SECONDS);
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!done) {
                p.destroyForcibly();
            }
            assertThat(done).as("python client finished; output:\n%s", out).isTrue();
            assertThat(p.exitValue()).as("python client output:\n%s", out).isZero();
            assertThat(out).contains("python client OK");
        }
    }
}
