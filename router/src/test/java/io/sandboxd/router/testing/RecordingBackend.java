package io.sandboxd.router.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw backend on 127.0.0.1 that records every byte each connection sent. It answers
 * {@code 200 ok} once it has seen a request head (and, for a chunked body, the last chunk), then
 * closes: enough to tell "the backend received nothing" and "the backend saw a complete request".
 */
public final class RecordingBackend implements AutoCloseable {
    private final ServerSocket server;
    public final AtomicInteger connections = new AtomicInteger();
    public final List<ByteArrayOutputStream> received = new CopyOnWriteArrayList<>();

    public RecordingBackend() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "recording-backend");
        t.setDaemon(true);
        t.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Everything every connection sent, in order, as ISO-8859-1 text. */
    public String all() {
        StringBuilder b = new StringBuilder();
        for (ByteArrayOutputStream r : received) {
            synchronized (r) {
                b.append(r.toString(StandardCharsets.ISO_8859_1));
            }
        }
        return b.toString();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                connections.incrementAndGet();
                Thread t = new Thread(() -> serve(s), "recording-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        received.add(got);
        try (s) {
            s.setSoTimeout(30_000);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                String text;
                synchronized (got) {
                    got.write(buf, 0, n);
                    text = got.toString(StandardCharsets.ISO_8859_1);
                }
                int head = text.indexOf("\r\n\r\n");
                boolean chunked = text.toLowerCase().contains("transfer-encoding: chunked");
                if (head >= 0 && (!chunked || text.endsWith("0\r\n\r\n"))) {
                    s.getOutputStream()
                            .write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                                    .getBytes(StandardCharsets.ISO_8859_1));
                    s.getOutputStream().flush();
                    return;
                }
            }
        } catch (IOException ignored) {
            // what arrived is recorded; the test judges it
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
