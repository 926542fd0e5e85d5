package io.sandboxd.bench;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ExitEvent;
import io.sandboxd.api.process.v1.InitEvent;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.SendSignalResponse;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.api.process.v1.WriteStdinResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A small, naive KEP-539.2 runtime (ProcessBuilder + JDK HttpServer) so the benchmark tool can be
 * tested end to end without the real daemon. Only what the benchmark calls.
 */
final class FakeRuntime implements AutoCloseable {
    private final Server grpc;
    private final HttpServer http;
    private final Path root;
    private final Map<Integer, Process> live = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();

    FakeRuntime(Path root) throws IOException {
        this.root = root;
        grpc = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new Service())
                .build()
                .start();
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
        http.setExecutor(Executors.newCachedThreadPool());
        http.createContext("/v1/health", ex -> reply(ex, 200, "{\"status\":\"ok\"}"));
        http.createContext("/v1/files/", this::files);
        http.start();
    }

    String grpcTarget() {
        return "127.0.0.1:" + grpc.getPort();
    }

    String restBase() {
        return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    private void files(HttpExchange ex) throws IOException {
        try (ex) {
            Path p = root.resolve(ex.getRequestURI().getPath().substring("/v1/files/".length()))
                    .normalize();
            if (!p.startsWith(root)) {
                reply(ex, 403, "{}");
                return;
            }
            switch (ex.getRequestMethod()) {
                case "PUT" -> {
                    Files.createDirectories(p.getParent());
                    Path tmp = Files.createTempFile(p.getParent(), ".up", ".tmp");
                    try (InputStream in = ex.getRequestBody()) {
                        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                    }
                    Files.move(tmp, p, StandardCopyOption.ATOMIC_MOVE);
                    ex.sendResponseHeaders(204, -1);
                }
                case "GET" -> {
                    if (!Files.isRegularFile(p)) {
                        reply(ex, 404, "{}");
                        return;
                    }
                    ex.sendResponseHeaders(200, Files.size(p));
                    try (OutputStream os = ex.getResponseBody()) {
                        Files.copy(p, os);
                    }
                }
                case "DELETE" -> {
                    if (Files.exists(p)) {
                        try (Stream<Path> s = Files.walk(p)) {
                            s.sorted(Comparator.reverseOrder())
                                    .forEach(x -> x.toFile().delete());
                        }
                    }
                    ex.sendResponseHeaders(204, -1);
                }
                default -> reply(ex, 405, "{}");
            }
        }
    }

    private static void reply(HttpExchange ex, int code, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
        }
    }

    @Override
    public void close() {
        grpc.shutdownNow();
        http.stop(0);
        live.values().forEach(Process::destroyForcibly);
    }

    private final class Service extends ProcessServiceGrpc.ProcessServiceImplBase {
        @Override
        public void execute(ExecuteRequest req, StreamObserver<ExecuteResponse> out) {
            try {
                Process p = new ProcessBuilder(req.getConfig().getCommandList())
                        .directory(root.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
                byte[] stdout = p.getInputStream().readAllBytes();
                int rc = p.waitFor();
                out.onNext(ExecuteResponse.newBuilder()
                        .setExitCode(rc)
                        .setStdout(ByteString.copyFrom(stdout))
                        .build());
                out.onCompleted();
            } catch (IOException | InterruptedException e) {
                out.onError(Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException());
            }
        }

        @Override
        public void start(StartRequest req, StreamObserver<StartResponse> out) {
            Process p;
            try {
                p = new ProcessBuilder(req.getConfig().getCommandList())
                        .directory(root.toFile())
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
            } catch (IOException e) {
                out.onError(Status.NOT_FOUND.withDescription(e.getMessage()).asRuntimeException());
                return;
            }
            int id = ids.incrementAndGet();
            live.put(id, p);
            out.onNext(StartResponse.newBuilder()
                    .setInit(InitEvent.newBuilder().setProcessId(id))
                    .build());
            Thread t = new Thread(() -> {
                try (InputStream in = p.getInputStream()) {
                    byte[] buf = new byte[65536];
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        synchronized (out) {
                            out.onNext(StartResponse.newBuilder()
                                    .setStdout(ByteString.copyFrom(buf, 0, n))
                                    .build());
                        }
                    }
                    int rc = p.waitFor();
                    live.remove(id);
                    synchronized (out) {
                        out.onNext(StartResponse.newBuilder()
                                .setExit(ExitEvent.newBuilder().setExitCode(rc))
                                .build());
                        out.onCompleted();
                    }
                } catch (Exception e) {
                    live.remove(id);
                    p.destroyForcibly();
                    out.onError(
                            Status.INTERNAL.withDescription(String.valueOf(e)).asRuntimeException());
                }
            });
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void writeStdin(WriteStdinRequest req, StreamObserver<WriteStdinResponse> out) {
            Process p = live.get(req.getProcessId());
            if (p == null) {
                out.onError(Status.NOT_FOUND.asRuntimeException());
                return;
            }
            try {
                if (req.hasEof()) {
                    p.getOutputStream().close();
                } else {
                    p.getOutputStream().write(req.getInput().toByteArray());
                    p.getOutputStream().flush();
                }
                out.onNext(WriteStdinResponse.getDefaultInstance());
                out.onCompleted();
            } catch (IOException e) {
                out.onError(Status.FAILED_PRECONDITION
                        .withDescription(e.getMessage())
                        .asRuntimeException());
            }
        }

        @Override
        public void sendSignal(SendSignalRequest req, StreamObserver<SendSignalResponse> out) {
            out.onError(Status.NOT_FOUND.asRuntimeException());
        }
    }
}
