package io.sandboxd.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** The REST filesystem scenarios. */
final class RestBench {
    private final URI base;
    private final String token;
    private final String prefix;

    RestBench(URI base, String token) {
        this.base = base;
        this.token = token;
        this.prefix = "/v1/files/sandboxd-bench-" + ProcessHandle.current().pid();
    }

    MiniHttp client() {
        return new MiniHttp(base, token);
    }

    boolean healthy() {
        try (MiniHttp h = client()) {
            return h.get("/v1/health", false).status() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * MB/s of PUT of {@code file}, one value per run. Like the cp+sync baseline, each run writes a
     * new file: the previous one is deleted and dirty pages are flushed ({@code sync}) before the
     * clock starts (otherwise every run would also pay for freeing the replaced 1 GiB).
     */
    double[] putFile(Path file, int runs) throws IOException {
        long bytes = Files.size(file);
        double[] out = new double[runs];
        try (MiniHttp h = client()) {
            for (int i = 0; i < runs; i++) {
                MiniHttp.Response d = h.exchangeDelete(prefix + "/big.bin");
                if (d.status() != 204 && d.status() != 404) {
                    throw new IOException("DELETE big file before a PUT run: HTTP " + d.status());
                }
                try {
                    LocalBaselines.timeShell("sync");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
                long t = System.nanoTime();
                MiniHttp.Response r = h.putFile(prefix + "/big.bin", file);
                double s = (System.nanoTime() - t) / 1e9;
                expect2xx("PUT big file", r);
                out[i] = bytes / 1e6 / s;
            }
        }
        return out;
    }

    /** MB/s of GET of the file stored by {@link #putFile}; checks the byte count. */
    double[] getFile(long bytes, int runs) throws IOException {
        double[] out = new double[runs + 1];
        try (MiniHttp h = client()) {
            for (int i = 0; i <= runs; i++) { // the first run warms the page cache, as cat's did
                long t = System.nanoTime();
                MiniHttp.Response r = h.get(prefix + "/big.bin", false);
                double s = (System.nanoTime() - t) / 1e9;
                expect2xx("GET big file", r);
                if (r.bodyBytes() != bytes) {
                    throw new IOException("GET big file: got " + r.bodyBytes() + " of " + bytes + " bytes");
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
            int client = c;
            ts[c] = new Thread(() -> {
                try (MiniHttp h = client()) {
                    int i = 0;
                    while (!stop.get()) {
                        String path = prefix + "/small-" + client + "-" + (i++ % 16);
                        expect2xx("PUT 4 KiB", h.put(path, data));
                        MiniHttp.Response r = h.get(path, true);
                        expect2xx("GET 4 KiB", r);
                        if (!Arrays.equals(r.body(), data)) {
                            throw new IOException("GET 4 KiB returned different content");
                        }
                        ops.incrementAndGet();
                    }
                } catch (Exception e) {
                    error[0] = String.valueOf(e.getMessage());
                    stop.set(true);
                }
            }, "rest-client-" + c);
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

    /** Removes everything this run stored. */
    void cleanup() {
        try (MiniHttp h = client()) {
            h.exchangeDelete(prefix + "?recursive=true");
        } catch (IOException ignored) {
            // best effort
        }
    }

    private static void expect2xx(String what, MiniHttp.Response r) throws IOException {
        if (r.status() / 100 != 2) {
            String body = r.body() == null ? "" : new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
            throw new IOException(what + ": HTTP " + r.status() + " " + body.strip());
        }
    }
}
