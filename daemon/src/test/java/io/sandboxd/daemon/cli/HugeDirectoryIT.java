package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStatus;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: a directory of 1,000,000 entries lists completely, four listings at once, from the
 * packaged daemon at -Xmx64m: 200, one JSON object with every entry in byte order, no 5xx,
 * health stays 200. The entries are created by a process; time and peak RSS are printed.
 * Issue 19, on the same directory and daemon: the paged listing ({@code fs/list}, runtime-contract
 * §4.3) pages through all of it, every entry exactly once, in byte order.
 */
class HugeDirectoryIT {
    static final int ENTRIES = 1_000_000;
    static final int CONCURRENT = 4;

    @TempDir
    Path tmp;

    @Test
    void millionEntriesListFourAtOnceAt64MiBHeap() throws Exception {
        Path scratch = ScratchDir.under(tmp);
        try {
            Path root = Files.createDirectories(scratch.resolve("root"));
            Files.createDirectories(root.resolve("big"));
            long t0 = System.nanoTime();
            // regular files in a scrambled order, one mknod each (open + close cost a third more)
            ScratchDir.python(
                    root.resolve("big"),
                    "import os\n"
                            + "os.umask(0)\n"
                            + "for i in range(" + ENTRIES + "):\n"
                            + "    os.mknod('f%07d' % ((i * 7919) % " + ENTRIES + "), 0o100644)\n");
            long createMs = (System.nanoTime() - t0) / 1_000_000;
            try (RunningDaemon d = DaemonSpec.packagedJar()
                    .withJvmOptions("-Xmx64m")
                    .withRootDir(root)
                    .withLogs(tmp, "daemon")
                    .withReadyTimeout(Duration.ofSeconds(60))
                    .start()) {
                long rssBefore = d.observer().rssBytes() / 1024;
                HttpClient http = HttpClient.newHttpClient();
                AtomicBoolean done = new AtomicBoolean();
                AtomicLong peakRss = new AtomicLong(rssBefore);
                List<Integer> healthCodes = new ArrayList<>();
                Thread sampler = new Thread(() -> {
                    while (!done.get()) {
                        try {
                            peakRss.accumulateAndGet(d.observer().rssBytes() / 1024, Math::max);
                            synchronized (healthCodes) {
                                healthCodes.add(status(d, "/v1/health"));
                            }
                            Thread.sleep(200);
                        } catch (Exception e) {
                            return;
                        }
                    }
                });
                sampler.start();
                ExecutorService pool = Executors.newFixedThreadPool(CONCURRENT);
                List<Future<Long>> counts = new ArrayList<>();
                t0 = System.nanoTime();
                for (int i = 0; i < CONCURRENT; i++) {
                    counts.add(pool.submit(
                            () -> listAndCheck(http, "http://127.0.0.1:" + d.restPort() + "/v1/files/big")));
                }
                for (Future<Long> c : counts) {
                    assertThat(c.get()).isEqualTo(ENTRIES);
                }
                long listMs = (System.nanoTime() - t0) / 1_000_000;
                t0 = System.nanoTime();
                int pages = pageThrough(http, "http://127.0.0.1:" + d.restPort());
                long pageMs = (System.nanoTime() - t0) / 1_000_000;
                done.set(true);
                sampler.join();
                pool.shutdown();
                assertThat(healthCodes).isNotEmpty().containsOnly(200);
                assertThat(d.isAlive()).isTrue();
                assertThat(d.stdout() + d.stderr()).doesNotContain("OutOfMemoryError");
                System.out.printf(
                        "1,000,000 entries: created in %d ms; %d concurrent listings in %d ms;"
                                + " paged in %d pages of %d in %d ms;"
                                + " daemon RSS %d MiB before, peak %d MiB (VmHWM %d MiB), -Xmx64m%n",
                        createMs,
                        CONCURRENT,
                        listMs,
                        pages,
                        PAGE,
                        pageMs,
                        rssBefore / 1024,
                        peakRss.get() / 1024,
                        hwmKiB(d) / 1024);
            }
        } finally {
            ScratchDir.remove(scratch);
        }
    }

    static final int PAGE = 100_000;

    /** Pages through {@code big} with {@code fs/list}; @return the number of pages */
    static int pageThrough(HttpClient http, String base) throws Exception {
        String cursor = "";
        String previous = "";
        long n = 0;
        int pages = 0;
        while (true) {
            String url = base + "/sandboxd/v1alpha1/fs/list?path=big&limit=" + PAGE + "&cursor=" + cursor;
            HttpResponse<InputStream> r = http.send(
                    HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.statusCode()).isEqualTo(200);
            pages++;
            long inPage = 0;
            try (Body in = new Body(r.body())) {
                in.expect(ascii("{\"path\":\"/big\",\"entries\":["));
                int c = in.read();
                while (c == '{') {
                    in.expect(ascii("\"path\":\""));
                    String name = readUntilQuote(in);
                    assertThat(name.compareTo(previous))
                            .as("byte order at entry %d", n)
                            .isPositive();
                    previous = name;
                    n++;
                    inPage++;
                    while ((c = in.read()) != '}') {
                        assertThat(c).isNotNegative();
                    }
                    c = in.read();
                    if (c == ',') {
                        c = in.read();
                    }
                }
                assertThat((char) c).isEqualTo(']');
                c = in.read();
                if (c == ',') {
                    in.expect(ascii("\"next_cursor\":\""));
                    cursor = readUntilQuote(in);
                    c = in.read();
                } else {
                    cursor = null;
                }
                assertThat((char) c).isEqualTo('}');
                in.expect(ascii("\n"));
                assertThat(in.read()).isEqualTo(-1);
            }
            assertThat(inPage).isLessThanOrEqualTo(PAGE);
            if (cursor == null) {
                assertThat(n).isEqualTo(ENTRIES);
                return pages;
            }
            assertThat(inPage).isEqualTo(PAGE);
        }
    }

    static long hwmKiB(RunningDaemon d) {
        return ProcStatus.read(d.pid()).map(s -> s.peakRssBytes() / 1024).orElse(-1L);
    }

    /** The status of a GET on a new connection, or -1 if there was no answer (which the health check counts). */
    static int status(RunningDaemon d, String path) {
        try {
            return RawHttp.exchange(
                            "127.0.0.1", d.restPort(), RawRequest.get(path).closing(), Duration.ofSeconds(5))
                    .status();
        } catch (IOException e) {
            return -1;
        }
    }

    private static final byte[] HEAD = ascii("{\"path\":\"/big\",\"entries\":[");
    private static final byte[] NAME = ascii("{\"name\":\"");
    private static final byte[] AFTER_NAME = ascii("\",\"size\":0,\"type\":\"file\",\"modified_at\":\"");
    private static final byte[] AFTER_TIME = ascii("\",\"mode\":\"0644\"}");
    private static final byte[] TAIL = ascii("}\n");
    /** Where an RFC 3339 UTC time with whole seconds has its punctuation: 2026-12-01T19:37:08Z. */
    private static final String TIME_SHAPE = "dddd-dd-ddTdd:dd:ddZ";

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Streams one listing and checks every byte of it: status, the object around the entries,
     * each entry in full (name f + 7 digits, size, type, an RFC 3339 time, mode), names strictly
     * increasing byte-wise. With the count, that is every created name exactly once, in order.
     *
     * @return the number of entries
     */
    static long listAndCheck(HttpClient http, String url) throws Exception {
        HttpResponse<InputStream> r =
                http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        try (Body in = new Body(r.body())) {
            in.expect(HEAD);
            long n = 0;
            byte[] previous = new byte[8];
            byte[] name = new byte[8];
            while (true) {
                in.expect(NAME);
                for (int i = 0; i < name.length; i++) {
                    int c = in.read();
                    if (i == 0 ? c != 'f' : c < '0' || c > '9') {
                        throw in.failure("a name f + 7 digits at entry " + n);
                    }
                    name[i] = (byte) c;
                }
                if (n > 0 && Arrays.compareUnsigned(name, previous) <= 0) {
                    throw in.failure("byte order at entry " + n + ": " + new String(name, StandardCharsets.US_ASCII)
                            + " after " + new String(previous, StandardCharsets.US_ASCII));
                }
                byte[] t = previous;
                previous = name;
                name = t;
                in.expect(AFTER_NAME);
                for (int i = 0; i < TIME_SHAPE.length(); i++) {
                    int c = in.read();
                    char want = TIME_SHAPE.charAt(i);
                    if (want == 'd' ? c < '0' || c > '9' : c != want) {
                        throw in.failure("modified_at shaped " + TIME_SHAPE + " at entry " + n);
                    }
                }
                in.expect(AFTER_TIME);
                n++;
                int c = in.read();
                if (c == ']') {
                    break;
                }
                if (c != ',') {
                    throw in.failure("',' or ']' after entry " + n);
                }
            }
            in.expect(TAIL);
            if (in.read() != -1) {
                throw in.failure("the end of the body");
            }
            return n;
        }
    }

    private static String readUntilQuote(Body in) throws IOException {
        StringBuilder b = new StringBuilder(16);
        int c;
        while ((c = in.read()) != '"') {
            if (c < 0) {
                throw new AssertionError("truncated listing");
            }
            b.append((char) c);
        }
        return b.toString();
    }

    /**
     * The response body through a plain array: BufferedInputStream.read() takes a lock per byte,
     * which for four listings of 94 MB each cost more CPU than the daemon spent making them.
     */
    static final class Body implements AutoCloseable {
        private final InputStream in;
        private final byte[] buf = new byte[64 * 1024];
        private int pos;
        private int end;
        private long offset;

        Body(InputStream in) {
            this.in = in;
        }

        int read() throws IOException {
            if (pos == end) {
                offset += end;
                pos = 0;
                end = Math.max(0, in.read(buf, 0, buf.length));
                if (end == 0) {
                    return -1;
                }
            }
            return buf[pos++] & 0xff;
        }

        void expect(byte[] s) throws IOException {
            for (byte b : s) {
                if (read() != (b & 0xff)) {
                    throw failure(new String(s, StandardCharsets.US_ASCII));
                }
            }
        }

        AssertionError failure(String expected) {
            return new AssertionError("listing body at byte " + (offset + pos - 1) + ": expected " + expected);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
