package io.sandboxd.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Stands in for the daemon in the launcher's tests: takes the daemon's port and root flags, serves
 * {@code GET /v1/health} on the REST port and accepts on the gRPC port. Test flags make it slow,
 * failing, deaf to SIGTERM, or a parent of a {@code sleep}.
 */
public final class FakeDaemon {
    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int grpc = 0;
        int rest = 0;
        long healthyAfterMs = 0;
        Map<String, String> flags = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--listen-host" -> host = args[++i];
                case "--grpc-port" -> grpc = Integer.parseInt(args[++i]);
                case "--rest-port" -> rest = Integer.parseInt(args[++i]);
                case "--root-dir" -> flags.put("root", args[++i]);
                case "--healthy-after-ms" -> healthyAfterMs = Long.parseLong(args[++i]);
                case "--fail-with" -> {
                    System.err.println("fake: bad flag --nope");
                    System.exit(Integer.parseInt(args[++i]));
                }
                case "--port-taken-once" -> {
                    Path marker = Path.of(args[++i]);
                    if (!Files.exists(marker)) {
                        Files.writeString(marker, "x");
                        System.err.println("java.net.BindException: Address already in use");
                        System.exit(1);
                    }
                }
                case "--ignore-sigterm" ->
                    sun.misc.Signal.handle(
                            new sun.misc.Signal("TERM"), s -> System.err.println("fake: ignoring SIGTERM"));
                case "--spawn-child" -> {
                    Process child = new ProcessBuilder("sleep", args[++i]).start();
                    System.out.println("child " + child.pid());
                }
                default -> flags.put("extra", flags.getOrDefault("extra", "") + args[i] + " ");
            }
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.err.println("fake: stopping");
            System.err.flush();
            Runtime.getRuntime().halt(0);
        }));
        System.out.println("ports " + grpc + " " + rest);
        System.out.println("flags " + flags);
        System.out.println("property fake.marker=" + System.getProperty("fake.marker"));
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("SANDBOXD_") || k.startsWith("FAKE_")) {
                System.out.println("env " + k + "=" + v);
            }
        });
        System.out.flush();
        long began = System.nanoTime();
        ServerSocket grpcSocket = new ServerSocket(grpc, 50, InetAddress.getByName(host));
        ServerSocket restSocket = new ServerSocket(rest, 50, InetAddress.getByName(host));
        Thread g = new Thread(() -> {
            while (true) {
                try (Socket s = grpcSocket.accept()) {
                    s.getOutputStream().flush();
                } catch (IOException e) {
                    return;
                }
            }
        });
        g.setDaemon(true);
        g.start();
        System.err.println("fake: listening");
        long healthyAt = began + healthyAfterMs * 1_000_000L;
        while (true) {
            try (Socket s = restSocket.accept()) {
                InputStream in = s.getInputStream();
                StringBuilder line = new StringBuilder();
                int c;
                while ((c = in.read()) >= 0 && c != '\n') {
                    line.append((char) c);
                }
                boolean healthy = System.nanoTime() - healthyAt >= 0;
                String body = healthy ? "{\"status\":\"ok\"}" : "{\"code\":\"UNAVAILABLE\",\"message\":\"starting\"}";
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 " + (healthy ? "200 OK" : "503 Service Unavailable") + "\r\nContent-Length: "
                                + body.length() + "\r\nConnection: close\r\n\r\n" + body)
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
        }
    }
}
