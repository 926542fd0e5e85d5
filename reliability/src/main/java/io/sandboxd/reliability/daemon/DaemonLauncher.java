package io.sandboxd.reliability.daemon;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts the packaged daemon as a separate OS process on free loopback ports and waits until
 * both {@code /v1/health} answers 200 and the gRPC health service says SERVING.
 */
public final class DaemonLauncher {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final int PORT_ATTEMPTS = 3;

    private DaemonLauncher() {
    }

    public static RunningDaemon start(DaemonSpec spec) throws IOException {
        if (!Files.isRegularFile(spec.jar())) {
            throw new IllegalStateException("daemon jar not found: " + spec.jar()
                    + " (build it first: ./mvnw -B -q -pl daemon -am -DskipTests package)");
        }
        IOException last = null;
        for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
            int grpcPort = freePort();
            int restPort = freePort();
            while (restPort == grpcPort) {
                restPort = freePort();
            }
            try {
                return startOn(spec, grpcPort, restPort);
            } catch (PortTakenException e) {
                last = e;
            }
        }
        throw new IOException("daemon did not start after " + PORT_ATTEMPTS + " port attempts", last);
    }

    /** Starts on the given ports (e.g. a restart on the same ports after a crash). */
    public static RunningDaemon startOn(DaemonSpec spec, int grpcPort, int restPort) throws IOException {
        List<String> javaCmd = new ArrayList<>();
        javaCmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        javaCmd.addAll(spec.jvmOptions());
        javaCmd.add("-jar");
        javaCmd.add(spec.jar().toString());
        javaCmd.addAll(List.of("--listen-host", "127.0.0.1", "--grpc-port", Integer.toString(grpcPort),
                "--rest-port", Integer.toString(restPort), "--root-dir", spec.rootDir().toString()));
        javaCmd.addAll(spec.extraFlags());

        List<String> cmd = new ArrayList<>();
        if (spec.openFileLimit().isPresent()) {
            // exec keeps the pid, so /proc observations see the JVM itself.
            cmd.addAll(List.of("sh", "-c", "ulimit -n " + spec.openFileLimit().get() + " && exec \"$@\"", "sh"));
        }
        cmd.addAll(javaCmd);

        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Files.createDirectories(spec.logFile().toAbsolutePath().getParent());
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(spec.logFile().toFile()));
        pb.environment().remove("SANDBOXD_AUTH_TOKEN");
        spec.authToken().ifPresent(t -> pb.environment().put("SANDBOXD_AUTH_TOKEN", t));
        Process process = pb.start();
        RunningDaemon daemon = new RunningDaemon(process, spec, grpcPort, restPort);
        try {
            awaitReady(daemon);
            return daemon;
        } catch (IOException | RuntimeException e) {
            daemon.kill();
            throw e;
        }
    }

    private static void awaitReady(RunningDaemon d) throws IOException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", d.grpcPort()).usePlaintext().build();
        try {
            boolean restUp = false;
            boolean grpcUp = false;
            while (System.nanoTime() < deadline) {
                if (!d.process().isAlive()) {
                    String tail = d.logTail(2000);
                    if (tail.contains("Address already in use") || tail.contains("BindException")) {
                        throw new PortTakenException(tail);
                    }
                    throw new IOException("daemon exited with " + d.process().exitValue() + " before ready; log tail:\n" + tail);
                }
                if (!restUp) {
                    restUp = restHealthy(http, d.restBase());
                }
                if (!grpcUp) {
                    grpcUp = grpcServing(channel);
                }
                if (restUp && grpcUp) {
                    return;
                }
                sleep(100);
            }
            throw new IOException("daemon not ready within " + READY_TIMEOUT.toSeconds() + " s (rest=" + restUp
                    + ", grpc=" + grpcUp + "); log tail:\n" + d.logTail(2000));
        } finally {
            channel.shutdownNow();
        }
    }

    private static boolean restHealthy(HttpClient http, String base) {
        try {
            HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/health"))
                    .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static boolean grpcServing(ManagedChannel channel) {
        try {
            HealthCheckResponse r = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(2, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance());
            return r.getStatus() == HealthCheckResponse.ServingStatus.SERVING;
        } catch (RuntimeException e) {
            return false;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static final class PortTakenException extends IOException {
        PortTakenException(String log) {
            super("port taken: " + log);
        }
    }
}
