package io.sandboxd.router.grpc;

import io.sandboxd.router.testing.RouterFixture;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * An independent client through the router: Debian's python3-grpcio runs Execute (statuses, every
 * trailer compared with the same call straight to the daemon, including its truncation counts),
 * deadlines, Start, WriteStdin, PTY Start + ResizeTTY and a cancel against the real daemon. The
 * 1 GiB Start stream is in {@link StartStreamThroughRouterTest}.
 */
class PythonThroughRouterTest {
    static final int OUTPUT_LIMIT = 1024;

    @Test
    void debianPythonGrpcioTalksToTheDaemonThroughTheRouter() throws Exception {
        PythonClient.assumeInstalled();
        try (RunningDaemon d = DaemonSpec.packagedJar()
                        .withRootDir(Files.createTempDirectory("router-py"))
                        .withArgs("--execute-output-limit", Integer.toString(OUTPUT_LIMIT))
                        .start();
                RouterFixture router = new RouterFixture(RouterFixture.config().withAllowLoopbackPodIp(true))) {
            PythonClient.run("calls", router.port(), d.grpcPort(), 180, Integer.toString(OUTPUT_LIMIT));
        }
    }
}
