package io.sandboxd.router.grpc;

import static io.sandboxd.router.grpc.ProcessCalls.channel;
import static io.sandboxd.router.grpc.ProcessCalls.routed;
import static io.sandboxd.router.grpc.ProcessCalls.start;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.router.testing.RouterProcess;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A 1 GiB Start stream through a router in its own JVM with 64 MiB heap and 64 MiB direct memory,
 * read by a client that stops for a while midway: it can only pass if flow control holds from the
 * client back to the daemon's pipe. The bytes are compared by SHA-256 with the same command run
 * here, and the rate is compared with the same stream read directly from the daemon.
 */
class StartStreamThroughRouterTest {
    static final long GIB = 1L << 30;
    /** Deterministic, incompressible enough, and never held whole by anyone. */
    static final String PRODUCER =
            "yes 'sandboxd router stream 0123456789 abcdefghijklmnopqrstuvwxyz' | head -c " + GIB;

    static RunningDaemon daemon;
    static RouterProcess router;
    static ManagedChannel viaRouter;
    static ManagedChannel direct;

    @BeforeAll
    static void startDaemonAndRouter() throws Exception {
        daemon = DaemonSpec.packagedJar()
                .withRootDir(Files.createTempDirectory("router-stream"))
                .start();
        router = RouterProcess.start(
                List.of("-Xmx64m", "-XX:MaxDirectMemorySize=64m"),
                "--cache-enabled=false",
                "--allow-loopback-pod-ip",
                "--io-threads",
                "2");
        viaRouter = channel(router.port);
        direct = channel(daemon.grpcPort());
    }

    @AfterAll
    static void stop() throws Exception {
        viaRouter.shutdownNow();
        direct.shutdownNow();
        router.close();
        daemon.close();
    }

    record Read(String sha256, long bytes, double seconds) {
        double mbPerSecond() {
            return bytes / 1e6 / seconds;
        }
    }

    /** Reads a whole Start stream, pausing {@code pauseMillis} once 64 MiB have arrived. */
    static Read readAll(Channel ch, long pauseMillis) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        long n = 0;
        boolean paused = pauseMillis == 0;
        int exit = -1;
        long t0 = System.nanoTime();
        Iterator<StartResponse> it = ProcessServiceGrpc.newBlockingStub(ch)
                .withDeadlineAfter(10, TimeUnit.MINUTES)
                .start(start("sh", "-c", PRODUCER));
        while (it.hasNext()) {
            StartResponse r = it.next();
            if (r.hasStdout()) {
                for (var bb : r.getStdout().asReadOnlyByteBufferList()) {
                    n += bb.remaining();
                    md.update(bb);
                }
                if (!paused && n >= 64L << 20) {
                    paused = true;
                    Thread.sleep(pauseMillis); // the router must stop the daemon, not buffer the difference
                }
            } else if (r.hasExit()) {
                exit = r.getExit().getExitCode();
            }
        }
        assertThat(exit).isZero();
        return new Read(HexFormat.of().formatHex(md.digest()), n, (System.nanoTime() - t0) / 1e9);
    }

    static String expectedSha() throws Exception {
        Process p = new ProcessBuilder("sh", "-c", PRODUCER + " | sha256sum").start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        return out.substring(0, 64);
    }

    @Test
    void oneGibStreamsThroughA64MibRouterByteExactWithFlowControl() throws Exception {
        String expected = expectedSha();
        Read routed = readAll(routed(viaRouter, daemon.grpcPort()), 3000);
        assertThat(routed.bytes()).isEqualTo(GIB);
        assertThat(routed.sha256()).isEqualTo(expected);
        long peakKib = router.statusKib("VmHWM");
        assertThat(router.process.isAlive()).isTrue();
        assertThat(router.output()).doesNotContain("OutOfMemoryError");

        // Rates without the pause, direct and routed, same run (printed for the README's table).
        Read directRun = readAll(direct, 0);
        Read routedRun = readAll(routed(viaRouter, daemon.grpcPort()), 0);
        assertThat(directRun.sha256()).isEqualTo(expected);
        assertThat(routedRun.sha256()).isEqualTo(expected);
        System.out.printf(
                "Start 1 GiB: direct %.0f MB/s, through the router %.0f MB/s (%.0f%%); router peak RSS %d MiB%n",
                directRun.mbPerSecond(),
                routedRun.mbPerSecond(),
                100 * routedRun.mbPerSecond() / directRun.mbPerSecond(),
                peakKib / 1024);
    }
}
