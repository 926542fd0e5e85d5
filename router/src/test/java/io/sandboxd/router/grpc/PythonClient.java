package io.sandboxd.router.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's python3-grpcio as an independent client ({@code src/test/python/router_client.py}, stubs
 * generated from the repository's proto with python3-grpc-tools). Skips only when /usr/bin/python3
 * lacks grpc / grpc_tools; .ci/run installs them, so CI never skips.
 */
final class PythonClient {
    static final Path PYTHON = Path.of("/usr/bin/python3");

    private PythonClient() {}

    static void assumeInstalled() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(PYTHON), "no /usr/bin/python3");
        Process probe = new ProcessBuilder(PYTHON.toString(), "-c", "import grpc, grpc_tools.protoc")
                .redirectErrorStream(true)
                .start();
        Assumptions.assumeTrue(
                probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0,
                "python3-grpcio / python3-grpc-tools not installed");
    }

    /**
     * Runs {@code router_client.py MODE ROUTER DAEMON_PORT PROTO_ROOT ARGS...} and asserts that it
     * printed its OK line and exited 0.
     */
    static String run(String mode, int routerPort, int daemonPort, long timeoutSeconds, String... args)
            throws Exception {
        Path repo = Path.of(System.getProperty("sandboxd.repoRoot", "..")).toAbsolutePath();
        List<String> cmd = new ArrayList<>(List.of(
                PYTHON.toString(),
                repo.resolve("router/src/test/python/router_client.py").toString(),
                mode,
                "127.0.0.1:" + routerPort,
                Integer.toString(daemonPort),
                repo.resolve("proto").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(done).as("python client finished; output:\n%s", out).isTrue();
        assertThat(p.exitValue()).as("python client output:\n%s", out).isZero();
        assertThat(out).contains("python client through the router OK: " + mode);
        return out;
    }
}
