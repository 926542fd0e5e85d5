package io.sandboxd.client.cli;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExitEvent;
import io.sandboxd.api.process.v1.InitEvent;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.ResizeTTYResponse;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.SendSignalResponse;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.api.process.v1.WriteStdinResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The training run of the class-data archive that {@code ./sandboxd-cli} records on first use:
 * every verb once, the way a user runs them, against stand-ins of the daemon's two APIs on
 * loopback (a ProcessService that answers Start with init, a stdout chunk and exit 0, and a REST
 * server with health, a listing, a file, and a 404), so that the classes of the real request
 * paths land in the archive. Not a verb; nothing leaves this machine.
 */
public final class Training {
    private Training() {}

    public static void main(String[] args) throws Exception {
        Server grpc = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new Process())
                .build()
                .start();
        HttpServer rest = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        rest.createContext("/", Training::rest);
        rest.start();
        String g = "127.0.0.1:" + grpc.getPort();
        String r = "http://127.0.0.1:" + rest.getAddress().getPort();
        Path dir = Files.createTempDirectory("sandboxd-cli-training");
        Path local = Files.writeString(dir.resolve("up.txt"), "training\n");
        PrintStream out = System.out;
        PrintStream err = System.err;
        try {
            PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
            System.setOut(sink);
            System.setErr(sink);
            Cli.run("exec", "--grpc", g, "--", "true");
            Cli.run("exec", "--grpc", g, "--env", "A=b", "--cwd", "x", "--", "sh", "-c", "exit 3");
            Cli.run("ls", "--rest", r);
            Cli.run("ls", "--json", "--rest", r, ":d");
            Cli.run("cp", "--rest", r, local.toString(), ":up.txt");
            Cli.run("cp", "--rest", r, ":d/f.txt", dir.resolve("down.txt").toString());
            Cli.run("cp", "--rest", r, ":missing", "-");
            Cli.run("rm", "-r", "--rest", r, ":d");
            Cli.run("health", "--grpc", g, "--rest", r);
            // The durable verbs' parsing and request paths (the stand-in answers UNIMPLEMENTED).
            Cli.run("run", "--detach", "--grpc", g, "--tag", "t", "--timeout", "1m", "--", "true");
            Cli.run("ps", "--json", "--grpc", g);
            Cli.run("wait", "--grpc", g, "1");
            Cli.run("kill", "--grpc", g, "--tag", "t", "--signal", "KILL");
            Cli.run("exec", "--grpc", "127.0.0.1:1", "--", "true");
            Cli.run("--help");
            Cli.run("--version");
            Cli.run("exec", "--nope");
        } finally {
            System.setOut(out);
            System.setErr(err);
            grpc.shutdownNow();
            rest.stop(0);
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
        System.exit(0);
    }

    private static void rest(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getRawPath();
        x.getRequestBody().readAllBytes();
        int status = 200;
        String type = "application/json";
        byte[] body;
        if (path.equals("/v1/health")) {
            body = "{\"status\":\"ok\",\"uptime_seconds\":1}".getBytes(StandardCharsets.UTF_8);
        } else if (x.getRequestMethod().equals("PUT") || x.getRequestMethod().equals("DELETE")) {
            status = 204;
            body = null;
        } else if (path.endsWith("f.txt")) {
            type = "application/octet-stream";
            body = "training\n".getBytes(StandardCharsets.UTF_8);
        } else if (path.endsWith("missing")) {
            status = 404;
            body = "{\"code\":\"NOT_FOUND\",\"message\":\"path does not exist\"}".getBytes(StandardCharsets.UTF_8);
        } else {
            body = ("{\"path\":\"/d\",\"entries\":[{\"name\":\"f.txt\",\"size\":9,\"type\":\"file\","
                            + "\"modified_at\":\"2026-01-01T00:00:00Z\",\"mode\":\"0644\"}]}")
                    .getBytes(StandardCharsets.UTF_8);
        }
        x.getResponseHeaders().set("Content-Type", type);
        x.sendResponseHeaders(status, body == null ? -1 : body.length);
        if (body != null) {
            x.getResponseBody().write(body);
        }
        x.close();
    }

    private static final class Process extends ProcessServiceGrpc.ProcessServiceImplBase {
        @Override
        public void start(StartRequest request, StreamObserver<StartResponse> out) {
            out.onNext(StartResponse.newBuilder()
                    .setInit(InitEvent.newBuilder().setProcessId(1))
                    .build());
            out.onNext(StartResponse.newBuilder()
                    .setStdout(ByteString.copyFromUtf8("training\n"))
                    .build());
            out.onNext(StartResponse.newBuilder()
                    .setExit(ExitEvent.newBuilder().setExitCode(0))
                    .build());
            out.onCompleted();
        }

        @Override
        public void writeStdin(WriteStdinRequest request, StreamObserver<WriteStdinResponse> out) {
            out.onNext(WriteStdinResponse.getDefaultInstance());
            out.onCompleted();
        }

        @Override
        public void sendSignal(SendSignalRequest request, StreamObserver<SendSignalResponse> out) {
            out.onError(Status.NOT_FOUND.withDescription("no such process").asRuntimeException());
        }

        @Override
        public void resizeTTY(ResizeTTYRequest request, StreamObserver<ResizeTTYResponse> out) {
            out.onNext(ResizeTTYResponse.getDefaultInstance());
            out.onCompleted();
        }
    }
}
