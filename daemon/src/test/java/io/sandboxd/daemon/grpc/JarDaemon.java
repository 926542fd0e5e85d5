package io.sandboxd.daemon.grpc;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The packaged daemon ({@code sandboxd.jar}) as a child process, for tests that need JVM flags. */
final class JarDaemon implements AutoCloseable {
    final Process process;
    final int grpcPort;
    final ManagedChannel channel;
    final Path log;

    private JarDaemon(Process process, int grpcPort, ManagedChannel channel, Path log) {
        this.process = process;
        this.grpcPort = grpcPort;
        this.channel = channel;
        this.log = log;
    }

    static JarDaemon start(Path root, List<String> jvmArgs, String... daemonArgs) throws Exception {
        return start(root, List.of(), jvmArgs, daemonArgs);
    }

    /** @param wrapper argv that execs the java command appended to it (same pid), e.g. to set dispositions */
    static JarDaemon start(Path root, List<String> wrapper, List<String> jvmArgs, String... daemonArgs)
            throws Exception {
        Path jar = Path.of(System.getProperty("sandboxd.jar", "target/sandboxd.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("missing " + jar + " (run mvn package)");
        }
        int grpc = freePort();
        int rest = freePort();
        while (rest == grpc) {
            rest = freePort();
        }
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-jar", jar.toString(), "--listen-host", "127.0.0.1",
                "--grpc-port", Integer.toString(grpc), "--rest-port", Integer.toString(rest),
                "--root-dir", root.toString()));
        cmd.addAll(List.of(daemonArgs));
        Path log = Files.createTempFile("sandboxd-it", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", grpc).usePlaintext()
                .maxInboundMessageSize(16 * 1024 * 1024).build();
        long end = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                HealthGrpc.newBlockingStub(ch).withDeadlineAfter(2, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance());
                break;
            } catch (RuntimeException e) {
                if (!p.isAlive() || System.currentTimeMillis() > end) {
                    p.destroyForcibly();
                    throw new IllegalStateException("daemon did not come up:\n" + Files.readString(log), e);
                }
                Thread.sleep(100);
            }
        }
        return new JarDaemon(p, grpc, ch, log);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** VmRSS of the daemon in KiB. */
    long rssKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return -1;
    }

    @Override
    public void close() throws Exception {
        channel.shutdownNow();
        process.destroy(); // SIGTERM: graceful shutdown
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
