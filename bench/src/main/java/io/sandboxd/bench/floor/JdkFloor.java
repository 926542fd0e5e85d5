package io.sandboxd.bench.floor;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The JVM floor (issue 22): the JDK alone, no framework. The REST port answers every request
 * with the health body (one connection at a time, {@code Connection: close}); the gRPC port only
 * accepts (no HTTP/2), which is all the start-up check needs. Its start-up and idle memory are
 * what any Java daemon on these JVM options pays before its first framework class.
 */
public final class JdkFloor {
    private static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 15\r\nConnection: close\r\n\r\n{\"status\":\"ok\"}")
            .getBytes(StandardCharsets.US_ASCII);

    private JdkFloor() {}

    public static void main(String[] args) throws IOException {
        FloorFlags flags = FloorFlags.parse(args);
        InetAddress host = InetAddress.getByName(flags.host());
        ServerSocket grpc = new ServerSocket(flags.grpcPort(), 50, host);
        Thread holder = new Thread(() -> acceptAndHold(grpc), "grpc-accept");
        holder.setDaemon(true);
        holder.start();
        try (ServerSocket rest = new ServerSocket(flags.restPort(), 50, host)) {
            while (true) {
                try (Socket s = rest.accept()) {
                    readHead(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    out.write(RESPONSE);
                    out.flush();
                } catch (IOException e) {
                    // one client's broken connection; keep serving
                }
            }
        }
    }

    /** Reads up to the blank line that ends a request head. */
    private static void readHead(InputStream in) throws IOException {
        int matched = 0;
        for (int b; matched < 4 && (b = in.read()) >= 0; ) {
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
    }

    private static void acceptAndHold(ServerSocket grpc) {
        while (true) {
            try {
                grpc.accept(); // left open: nothing is spoken on it
            } catch (IOException e) {
                return;
            }
        }
    }
}
