package io.sandboxd.router.testing;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The packaged daemon ({@code daemon/target/sandboxd.jar}) as a child process on free loopback ports. */
public final class DaemonProcess implements AutoCloseable {
  public final Process process;
  public final int grpcPort;
  public final Path log;

  private DaemonProcess(Process process, int grpcPort, Path log) {
    this.process = process;
    this.grpcPort = grpcPort;
    this.log = log;
  }

  public static DaemonProcess start(Path root, String... daemonArgs) throws Exception {
    Path jar = Path.of(System.getProperty("sandboxd.jar", "../daemon/target/sandboxd.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("missing " + jar + " (./mvnw -pl router -am verify builds it)");
    }
    int grpc = freePort();
    int rest = freePort();
    while (rest == grpc) {
      rest = freePort();
    }
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar", jar.toString(), "--listen-host", "127.0.0.1", "--grpc-port", Integer.toString(grpc),
        "--rest-port", Integer.toString(rest), "--root-dir", root.toString()));
    cmd.addAll(List.of(daemonArgs));
    Path log = Files.createTempFile("sandboxd-router-it", ".log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", grpc).usePlaintext().build();
    try {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (true) {
        try {
          ProcessServiceGrpc.newBlockingStub(ch).withDeadlineAfter(2, TimeUnit.SECONDS).execute(ExecuteRequest
              .newBuilder().setConfig(ProcessConfig.newBuilder().addCommand("true")).build());
          break;
        } catch (RuntimeException e) {
          if (!p.isAlive() || System.nanoTime() > end) {
            p.destroyForcibly();
            throw new IllegalStateException("daemon did not come up:\n" + Files.readString(log), e);
          }
          Thread.sleep(100);
        }
      }
    } finally {
      ch.shutdownNow();
    }
    return new DaemonProcess(p, grpc, log);
  }

  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
