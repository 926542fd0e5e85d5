package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stopping lets an in-flight download finish (within the deadline) instead of cutting it. */
class GracefulStopTest {
    @TempDir
    Path tmp;

    @Test
    void inFlightDownloadCompletesDuringStop() throws Exception {
        RestFixture f = new RestFixture(tmp);
        long size = 32L << 20;
        try (RandomAccessFile raf = new RandomAccessFile(f.root.resolve("big").toFile(), "rw")) {
            raf.setLength(size);
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", f.server.port()));
            s.setReceiveBufferSize(16 * 1024);
            OutputStream out = s.getOutputStream();
            out.write("GET /v1/files/big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            long total = in.read(buf);
            CompletableFuture<Void> stop =
                    CompletableFuture.runAsync(() -> f.server.stop(System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
            Thread.sleep(300); // the stop is under way while we are still reading
            int n;
            while ((n = in.read(buf)) > 0) {
                total += n;
            }
            stop.get(60, TimeUnit.SECONDS);
            assertThat(total).isGreaterThan(size); // headers + every body byte
        } finally {
            f.sandboxRoot.close();
        }
    }
}
