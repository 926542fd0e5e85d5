package io.sandboxd.router.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.client.Command;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.router.testing.RouterProcess;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A 1 GiB Start stream through a router in its own JVM with 64 MiB heap and 64 MiB direct memory,
 * read by two independent clients: the project's client library, which stops reading for 3 s
 * midway (it can only pass if flow control holds from the client back to the daemon's pipe), and
 * Debian's python3-grpcio. The bytes are compared by SHA-256 with the producer's output computed
 * here. Rates are the bench tool's ({@code sandboxd-bench router}), not a test's.
 */
class StartStreamThroughRouterTest {
    static final long GIB = 1L << 30;
    static final String LINE = "sandboxd router stream 0123456789 abcdefghijklmnopqrstuvwxyz\n";
    /** Deterministic, and never held whole by anyone. */
    static final String PRODUCER = "yes '" + LINE.strip() + "' | head -c " + GIB;

    static String expectedSha;
    static RunningDaemon daemon;
    static RouterProcess router;
    static ManagedChannel channel;
    static SandboxdClient viaRouter;

    @BeforeAll
    static void startDaemonAndRouter() throws Exception {
        expectedSha = sha256OfProducer();
        daemon = DaemonSpec.packagedJar()
                .withRootDir(Files.createTempDirectory("router-stream"))
                .start();
        router = RouterProcess.start(
                List.of("-Xmx64m", "-XX:MaxDirectMemorySize=64m"),
                "--cache-enabled=false",
                "--allow-loopback-pod-ip",
                "--io-threads",
                "2");
        channel = ProcessCalls.routerChannel(router.port, daemon.grpcPort());
        viaRouter = ProcessCalls.client(channel, "127.0.0.1:" + router.port);
    }

    @AfterAll
    static void stop() throws Exception {
        viaRouter.close();
        channel.shutdownNow();
        router.close();
        daemon.close();
    }

    @AfterEach
    void routerSurvived() throws Exception {
        assertThat(router.process.isAlive()).isTrue();
        assertThat(router.output()).doesNotContain("OutOfMemoryError");
    }

    /** What {@link #PRODUCER} writes: {@link #LINE} over and over, cut at 1 GiB. */
    static String sha256OfProducer() throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] line = LINE.getBytes(StandardCharsets.US_ASCII);
        byte[] block = new byte[line.length * 4096];
        for (int i = 0; i < 4096; i++) {
            System.arraycopy(line, 0, block, i * line.length, line.length);
        }
        long left = GIB;
        while (left > 0) {
            int n = (int) Math.min(left, block.length);
            md.update(block, 0, n);
            left -= n;
        }
        return HexFormat.of().formatHex(md.digest());
    }

    @Test
    void theProjectsClientReadsOneGibWithAPauseByteExact() throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        long n = 0;
        boolean paused = false;
        Integer exit = null;
        try (RemoteProcess p = viaRouter
                .withStreamDeadline(Duration.ofMinutes(10))
                .start(Command.shell(PRODUCER))) { // pull mode: one message is asked for per next()
            for (StartResponse r; (r = p.next()) != null; ) {
                if (r.hasStdout()) {
                    for (var bb : r.getStdout().asReadOnlyByteBufferList()) {
                        n += bb.remaining();
                        md.update(bb);
                    }
                    if (!paused && n >= 64L << 20) {
                        paused = true;
                        Thread.sleep(3000); // the router must stop the daemon, not buffer the difference
                    }
                } else if (r.hasExit()) {
                    exit = r.getExit().getExitCode();
                }
            }
        }
        assertThat(exit).isZero();
        assertThat(n).isEqualTo(GIB);
        assertThat(HexFormat.of().formatHex(md.digest())).isEqualTo(expectedSha);
        System.out.printf("router peak RSS after the paused 1 GiB stream: %d MiB%n", router.statusKib("VmHWM") / 1024);
    }

    @Test
    void debianPythonGrpcioReadsOneGibByteExact() throws Exception {
        PythonClient.assumeInstalled();
        PythonClient.run("stream", router.port, daemon.grpcPort(), 600, Long.toString(GIB), expectedSha, PRODUCER);
    }
}
