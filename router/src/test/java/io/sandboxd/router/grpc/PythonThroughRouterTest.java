package io.sandboxd.router.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.router.testing.RouterFixture;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * An independent client through the router: Debian's python3-grpcio (src/test/python/router_client.py)
 * runs Execute, Start, WriteStdin, PTY Start + ResizeTTY and a cancel against the real daemon. Skips
 * only when /usr/bin/python3 lacks grpc / grpc_tools; .ci/run installs them, so CI never skips.
 */
class PythonThroughRouterTest {
    static final Path PYTHON = Path.of("/usr/bin/python3");

    @Test
    void debianPythonGrpcioTalksToTheDaemonThroughTheRouter() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(PYTHON), "no /usr/bin/python3");
        Process probe = new ProcessBuilder(PYTHON.toString(), "-c", "import grpc, grpc_tools.protoc")
                .redirectErrorStream(true)
                .start();
        Assumptions.assumeTrue(
                probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0,
                "python3-grpcio / python3-grpc-tools not installed");
        Path repo = Path.of(System.getProperty("sandboxd.repoRoot", "..")).toAbsolutePath();
        try (RunningDaemon d = DaemonSpec.packagedJar()
                        .withRootDir(Files.createTempDirectory("router-py"))
                        .start();
                RouterFixture router = new RouterFixture(RouterFixture.config().withAllowLoopbackPodIp(true))) {
            Process p = new ProcessBuilder(
                            PYTHON.toString(),
                            repo.resolve("router/src/test/python/router_client.py")
                                    .toString(),
                            "127.0.0.1:" + router.port(),
                            Integer.toString(d.grpcPort()),
                            repo.resolve("proto").toString())
                    .redirectErrorStream(true)
                    .start();
            boolean done = p.waitFor(180, TimeUnit.SECONDS);
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!done) {
                p.destroyForcibly();
            }
            assertThat(done).as("python client finished; output:\n%s", out).isTrue();
            assertThat(p.exitValue()).as("python client output:\n%s", out).isZero();
            assertThat(out).contains("python client through the router OK");
        }
    }
}
