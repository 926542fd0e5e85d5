package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.metrics.Metrics;
import io.sandboxd.testkit.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Both listeners start in parallel: a failure on either side leaves nothing listening after shutdown. */
class DaemonStartTest {
    @TempDir
    Path root;

    private DaemonConfig config(int grpcPort, int restPort) throws IOException {
        return TestConfig.withPorts(TestConfig.forRoot(root.toRealPath()), grpcPort, restPort);
    }

    private static Daemon daemon(DaemonConfig config) {
        return new Daemon(config, new Metrics(), TestConfig.silentLog());
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void bothListenersServeAfterStart() throws Exception {
        Daemon d = daemon(TestConfig.forRoot(root.toRealPath()));
        try {
            d.start();
            assertThat(d.grpcPort()).isPositive();
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), d.restPort())) {
                OutputStream out = s.getOutputStream();
                out.write("GET /v1/health HTTP/1.1\r\nHost: l\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .startsWith("HTTP/1.1 200");
            }
        } finally {
            d.shutdown();
        }
    }

    @Test
    void restPortTakenFailsStartAndShutdownClosesGrpc() throws Exception {
        int grpcPort = FreePorts.pick();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Daemon d = daemon(config(grpcPort, taken.getLocalPort()));
            assertThatThrownBy(d::start)
                    .isInstanceOf(IOException.class)
                    .hasMessageMatching("REST listener [^ ]+:" + taken.getLocalPort()
                            + ": address already in use \\(another process listens on port \\d+\\)");
            d.shutdown();
        }
        assertThat(bindable(grpcPort)).as("gRPC port released").isTrue();
    }

    @Test
    void grpcPortTakenFailsStartAndShutdownClosesRest() throws Exception {
        int restPort = FreePorts.pick();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Daemon d = daemon(config(taken.getLocalPort(), restPort));
            assertThatThrownBy(d::start)
                    .isInstanceOf(IOException.class)
                    .hasMessageMatching("gRPC listener [^ ]+:" + taken.getLocalPort()
                            + ": address already in use \\(another process listens on port \\d+\\)");
            d.shutdown();
        }
        assertThat(bindable(restPort)).as("REST port released").isTrue();
    }

    @Test
    void bothPortsTakenReportsBothFailures() throws Exception {
        try (ServerSocket g = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ServerSocket r = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Daemon d = daemon(config(g.getLocalPort(), r.getLocalPort()));
            assertThatThrownBy(d::start).isInstanceOf(IOException.class).satisfies(e -> assertThat(e.getSuppressed())
                    .hasSize(1));
            d.shutdown();
        }
    }
}
