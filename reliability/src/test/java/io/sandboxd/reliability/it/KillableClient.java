package io.sandboxd.reliability.it;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A client run as its own JVM so a test can {@code kill -9} it mid-transfer, exactly as a crashed
 * client would be. {@code upload PORT PATH}: PUT with a 1 GiB Content-Length, 2 MiB sent quickly
 * then a trickle, never finishing. {@code download PORT PATH}: GET, read 1 MiB, then stop reading.
 * Prints {@code READY} once the transfer is under way.
 */
public final class KillableClient {
    private KillableClient() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int port = Integer.parseInt(args[1]);
        String path = args[2];
        String token = args.length > 3 ? args[3] : null;
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            String auth = token == null ? "" : "Authorization: Bearer " + token + "\r\n";
            if (mode.equals("upload")) {
                out.write(("PUT /v1/files/" + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                        + auth + "Content-Length: " + (1L << 30) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                byte[] chunk = new byte[64 * 1024];
                for (int i = 0; i < 32; i++) {
                    out.write(chunk);
                }
                out.flush();
                System.out.println("READY");
                System.out.flush();
                while (true) {
                    out.write(chunk, 0, 1024);
                    out.flush();
                    Thread.sleep(200);
                }
            } else {
                out.write(("GET /v1/files/" + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                InputStream in = s.getInputStream();
                byte[] buf = new byte[64 * 1024];
                long total = 0;
                while (total < (1 << 20)) {
                    int n = in.read(buf);
                    if (n < 0) {
                        System.out.println("EOF");
                        return;
                    }
                    total += n;
                }
                System.out.println("READY");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
        }
    }
}
