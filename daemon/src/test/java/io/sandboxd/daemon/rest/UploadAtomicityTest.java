package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Aborted uploads leave nothing; concurrent writers and readers never see partial content. */
class UploadAtomicityTest {
    @TempDir
    Path tmp;

    RestFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new RestFixture(tmp);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private List<String> allNames() throws Exception {
        // The daemon removes an aborted upload's temp file concurrently: a walk that loses that
        // race is simply retried.
        for (int attempt = 0; ; attempt++) {
            try (Stream<Path> s = Files.walk(f.root)) {
                return s.filter(p -> !p.equals(f.root))
                        .map(p -> f.root.relativize(p).toString())
                        .sorted()
                        .toList();
            } catch (java.io.UncheckedIOException e) {
                if (!(e.getCause() instanceof java.nio.file.NoSuchFileException) || attempt >= 20) {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
    }

    private void abortHalfway(String target, String contentType, byte[] head) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", f.server.port()));
            OutputStream out = s.getOutputStream();
            out.write(("PUT " + target + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + contentType
                            + "\r\nContent-Length: 10000000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(head);
            byte[] chunk = new byte[64 * 1024];
            Arrays.fill(chunk, (byte) 'x');
            for (int i = 0; i < 40; i++) {
                out.write(chunk);
            }
            out.flush();
            Thread.sleep(200);
        } // closed with ~2.6 MB of 10 MB sent
    }

    private void awaitOnly(List<String> expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!allNames().equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(allNames()).isEqualTo(expected);
    }

    @Test
    void abortedRawUploadLeavesNoFileAndNoTemp() throws Exception {
        abortHalfway("/v1/files/dir/big.bin", "application/octet-stream", new byte[0]);
        awaitOnly(List.of("dir"));
        // and the daemon is fine afterwards
        assertThat(f.exchange(RawRequest.put("/v1/files/dir/big.bin", "ok".getBytes())
                                .header("Content-Type", "application/octet-stream"))
                        .status())
                .isEqualTo(204);
        assertThat(allNames()).containsExactly("dir", "dir/big.bin");
    }

    @Test
    void abortedUploadKeepsTheOldContent() throws Exception {
        f.exchange(RawRequest.put("/v1/files/keep.bin", "old".getBytes())
                .header("Content-Type", "application/octet-stream"));
        abortHalfway("/v1/files/keep.bin", "application/octet-stream", new byte[0]);
        abortHalfway(
                "/v1/files/keep.bin",
                "multipart/form-data; boundary=B",
                "--B\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        awaitOnly(List.of("keep.bin"));
        assertThat(Files.readString(f.root.resolve("keep.bin"))).isEqualTo("old");
    }

    @Test
    void concurrentWritersAndReadersNeverSeePartialContent() throws Exception {
        int size = 512 * 1024;
        byte[][] versions = new byte[4][size];
        for (int i = 0; i < versions.length; i++) {
            Arrays.fill(versions[i], (byte) ('a' + i));
        }
        f.exchange(
                RawRequest.put("/v1/files/shared.bin", versions[0]).header("Content-Type", "application/octet-stream"));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        List<Future<?>> jobs = new ArrayList<>();
        try {
            for (int w = 0; w < 3; w++) {
                int id = w + 1;
                jobs.add(pool.submit(() -> {
                    while (!stop.get()) {
                        RawResponse r = f.exchange(RawRequest.put("/v1/files/shared.bin", versions[id])
                                .header("Content-Type", "application/octet-stream"));
                        assertThat(r.status()).isEqualTo(204);
                        writes.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (int rd = 0; rd < 4; rd++) {
                jobs.add(pool.submit(() -> {
                    while (!stop.get()) {
                        RawResponse r = f.exchange(RawRequest.get("/v1/files/shared.bin"));
                        assertThat(r.status()).isEqualTo(200);
                        byte[] b = r.body();
                        assertThat(b.length).isEqualTo(size);
                        byte first = b[0];
                        for (byte x : b) {
                            if (x != first) {
                                throw new AssertionError("mixed content observed");
                            }
                        }
                        reads.incrementAndGet();
                    }
                    return null;
                }));
            }
            Thread.sleep(4000);
            stop.set(true);
            for (Future<?> j : jobs) {
                j.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(reads.get()).isPositive();
        assertThat(writes.get()).isPositive();
        assertThat(allNames()).containsExactly("shared.bin");
    }

    @Test
    void staleTempsOfADeadDaemonAreRemovedAtStartAndNeverListed() throws Exception {
        Files.createDirectories(f.root.resolve("d"));
        Files.writeString(f.root.resolve("d/.sandboxd-upload-deadbeef0000-1.tmp"), "stale");
        assertThat(f.exchange(RawRequest.get("/v1/files/d")).text()).isEqualTo("{\"path\":\"/d\",\"entries\":[]}\n");
        // the start-up cleaner may already have run; either way, after a pass the stale temp is gone
        f.store.removeStaleTemps();
        assertThat(allNames()).containsExactly("d");
    }
}
