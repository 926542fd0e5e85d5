package io.sandboxd.bench;

import io.sandboxd.client.RestCallException;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.SandboxdException;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The REST filesystem scenarios. What is timed goes over testkit's {@link RawHttp}, so that the
 * client is not the bottleneck: plain keep-alive HTTP/1.1, file bodies sent with sendfile,
 * response bodies counted, not kept. The calls around them (deleting the previous file, the
 * cleanup) go through the client library.
 */
final class RestBench {
    private static final Duration TIMEOUT = Duration.ofSeconds(600);
    private final URI base;
    private final String token;
    private final SandboxdClient client;
    private final String dir;
    private final String prefix;

    RestBench(String base, String token, SandboxdClient client) {
        this.base = URI.create(base);
        this.token = token;
        this.client = client;
        this.dir = "sandboxd-bench-" + ProcessHandle.current().pid();
        this.prefix = "/v1/files/" + dir;
    }

    private RawHttp connect() throws IOException {
        return RawHttp.connect(base, TIMEOUT);
    }

    /**
     * MB/s of PUT of {@code file}, one value per run. Like the cp+sync baseline, each run writes a
     * new file: the previous one is deleted and dirty pages are flushed ({@code sync}) before the
     * clock starts (otherwise every run would also pay for freeing the replaced 1 GiB).
     */
    double[] putFile(Path file, int runs) throws IOException {
        long bytes = Files.size(file);
        RawRequest head = RawRequest.of("PUT", prefix + "/big.bin")
                .bearer(token)
                .header("Content-Type", "application/octet-stream")
                .header("Content-Length", Long.toString(bytes));
        double[] out = new double[runs];
        for (int i = 0; i < runs; i++) {
            try {
                client.delete(dir + "/big.bin");
            } catch (RestCallException e) {
                if (e.httpStatus() != 404) {
                    throw new IOException("DELETE big file before a PUT run: HTTP " + e.httpStatus(), e);
                }
            }
            try {
                LocalBaselines.timeShell("sync");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            try (RawHttp h = connect()) {
                long t = System.nanoTime();
                RawResponse r = h.send(head).sendFile(file).read();
                double s = (System.nanoTime() - t) / 1e9;
                expect2xx("PUT big file", r);
                out[i] = bytes / 1e6 / s;
            }
        }
        return out;
    }

    /** MB/s of GET of the file stored by {@link #putFile}; checks the byte count. */
    double[] getFile(long bytes, int runs) throws IOException {
        RawRequest get = RawRequest.get(prefix + "/big.bin").bearer(token);
        double[] out = new double[runs + 1];
        try (RawHttp h = connect()) {
            for (int i = 0; i <= runs; i++) { // the first run warms the page cache, as cat's did
                long t = System.nanoTime();
                RawResponse r = h.send(get).read(false, OutputStream.nullOutputStream());
                double s = (System.nanoTime() - t) / 1e9;
                expect2xx("GET big file", r);
                if (r.bodyLength() != bytes) {
                    throw new IOException("GET big file: got " + r.bodyLength() + " of " + bytes + " bytes");
                }
                out[i] = bytes / 1e6 / s;
            }
        }
        return Arrays.copyOfRange(out, 1, out.length);
    }

    /** PUT then GET of a 4 KiB file per round trip, {@code clients} keep-alive connections, rate per window. */
    double[] smallRoundTrips(int clients, int windows, long windowMs) throws InterruptedException {
        byte[] data = new byte[4096];
        Arrays.fill(data, (byte) 'y');
        AtomicLong ops = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        String[] error = new String[1];
        Thread[] ts = new Thread[clients];
        for (int c = 0; c < clients; c++) {
            RawRequest[] puts = new RawRequest[16];
            RawRequest[] gets = new RawRequest[16];
            for (int k = 0; k < 16; k++) {
                String path = prefix + "/small-" + c + "-" + k;
                puts[k] = RawRequest.put(path, data).bearer(token).header("Content-Type", "application/octet-stream");
                gets[k] = RawRequest.get(path).bearer(token);
            }
            ts[c] = new Thread(
                    () -> {
                        RawHttp h = null;
                        try {
                            int i = 0;
                            while (!stop.get()) {
                                int k = i++ % 16;
                                h = h != null ? h : connect();
                                RawResponse put = h.send(puts[k]).read();
                                expect2xx("PUT 4 KiB", put);
                                h = keepAlive(h, put);
                                h = h != null ? h : connect();
                                RawResponse r = h.send(gets[k]).read();
                                expect2xx("GET 4 KiB", r);
                                if (!Arrays.equals(r.body(), data)) {
                                    throw new IOException("GET 4 KiB returned different content");
                                }
                                h = keepAlive(h, r);
                                ops.incrementAndGet();
                            }
                        } catch (Exception e) {
                            error[0] = String.valueOf(e.getMessage());
                            stop.set(true);
                        } finally {
                            closeQuietly(h);
                        }
                    },
                    "rest-client-" + c);
            ts[c].start();
        }
        try {
            Thread.sleep(Math.min(500, windowMs));
            double[] rates = new double[windows];
            for (int w = 0; w < windows && !stop.get(); w++) {
                long o0 = ops.get();
                long t0 = System.nanoTime();
                Thread.sleep(windowMs);
                rates[w] = (ops.get() - o0) / ((System.nanoTime() - t0) / 1e9);
            }
            if (error[0] != null) {
                throw new IllegalStateException("4 KiB round trips failed: " + error[0]);
            }
            return rates;
        } finally {
            stop.set(true);
            for (Thread t : ts) {
                t.join(60_000);
            }
        }
    }

    /** The connection, or null (closed) when the server said it closes it. */
    private static RawHttp keepAlive(RawHttp h, RawResponse r) {
        if ("close".equalsIgnoreCase(r.header("Connection"))) {
            closeQuietly(h);
            return null;
        }
        return h;
    }

    private static void closeQuietly(RawHttp h) {
        if (h != null) {
            try {
                h.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    /** Removes everything this run stored. */
    void cleanup() {
        try {
            client.delete(dir, true);
        } catch (SandboxdException ignored) {
            // best effort
        }
    }

    private static void expect2xx(String what, RawResponse r) throws IOException {
        if (r.status() / 100 != 2) {
            throw new IOException(what + ": HTTP " + r.status() + " " + r.text().strip());
        }
    }
}
