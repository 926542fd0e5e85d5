package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.DirectBuffers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.content.AsyncContent;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/** The raw PUT body path: Jetty chunks gathered into large writes, cut-offs as client errors. */
class RawBodySourceTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void chunksArriveIntactAndAreGatheredIntoFullBuffers() throws Exception {
        byte[] data = new byte[100_000];
        new Random(7).nextBytes(data);
        AsyncContent body = new AsyncContent();
        // written from another thread, in odd sizes, while the source blocks for more
        Thread writer = new Thread(() -> {
            int pos = 0;
            int step = 1;
            while (pos < data.length) {
                int n = Math.min(step, data.length - pos);
                body.write(false, ByteBuffer.wrap(data, pos, n), Callback.NOOP);
                pos += n;
                step = step * 3 % 9001 + 1;
            }
            body.close();
        });
        writer.start();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        List<Integer> writes = new ArrayList<>();
        new RawBodySource(body, new DirectBuffers(4096, 1), new MinimumRate()).writeTo(buf -> {
            writes.add(buf.remaining());
            byte[] b = new byte[buf.remaining()];
            buf.get(b);
            got.write(b);
        });
        writer.join(30_000);
        assertThat(got.toByteArray()).isEqualTo(data);
        // every write but the last is a full buffer: few large file writes, not one per chunk
        assertThat(writes.subList(0, writes.size() - 1)).allMatch(n -> n == 4096);
        assertThat(writes).hasSize((data.length + 4095) / 4096);
    }

    @Test
    void largeChunksGoToTheFileAsTheyAre() throws Exception {
        AsyncContent body = new AsyncContent();
        body.write(false, ByteBuffer.wrap(new byte[100]), Callback.NOOP);
        body.write(false, ByteBuffer.allocateDirect(RawBodySource.DIRECT_WRITE), Callback.NOOP);
        body.write(false, ByteBuffer.allocateDirect(RawBodySource.DIRECT_WRITE + 1), Callback.NOOP);
        body.write(true, ByteBuffer.wrap(new byte[7]), Callback.NOOP);
        List<Integer> writes = new ArrayList<>();
        new RawBodySource(body, new DirectBuffers(1 << 20, 1), new MinimumRate()).writeTo(buf -> {
            writes.add(buf.remaining());
            buf.position(buf.limit());
        });
        // the small first chunk is flushed before the large ones, which go as they are; the last
        // small one is flushed at the end
        assertThat(writes).containsExactly(100, RawBodySource.DIRECT_WRITE, RawBodySource.DIRECT_WRITE + 1, 7);
    }

    @Test
    void whenTheFileSideFailsTheRestOfTheBodyIsReadSoTheClientGetsTheAnswer() {
        AsyncContent body = new AsyncContent();
        for (int i = 0; i < 10; i++) {
            body.write(false, ByteBuffer.allocate(RawBodySource.DIRECT_WRITE), Callback.NOOP);
        }
        body.close();
        assertThatThrownBy(() -> new RawBodySource(body, new DirectBuffers(4096, 1), new MinimumRate()).writeTo(buf -> {
                    throw new IOException("No space left on device");
                }))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("No space");
        assertThat(body.read().isLast()).as("everything was consumed").isTrue();
    }

    @Test
    void aFailedBodyIsAClientErrorAndNothingMoreIsWritten() {
        AsyncContent body = new AsyncContent();
        body.write(false, ByteBuffer.wrap(new byte[10]), Callback.NOOP);
        body.fail(new IOException("connection reset"));
        assertThatThrownBy(() -> new RawBodySource(body, new DirectBuffers(4096, 1), new MinimumRate())
                        .writeTo(buf -> buf.position(buf.limit())))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("cut short");
                });
    }

    @Test
    void aBodyThatTricklesIsCutOffAfterTheGracePeriod() {
        AtomicLong now = new AtomicLong();
        MinimumRate rate = new MinimumRate(1024, 10 * SECOND, now::get);
        AsyncContent body = new AsyncContent();
        // 100 bytes per (fake) second, far below 1 KiB/s
        Thread writer = new Thread(() -> {
            for (int i = 0; i < 30 && !body.isClosed(); i++) {
                now.addAndGet(SECOND);
                body.write(false, ByteBuffer.wrap(new byte[100]), Callback.NOOP);
            }
            body.close();
        });
        writer.start();
        assertThatThrownBy(() -> new RawBodySource(body, new DirectBuffers(4096, 1), rate)
                        .writeTo(buf -> buf.position(buf.limit())))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("bytes/s");
                });
    }

    @Test
    void minimumRateAllowsSlowStartsAndFastBodies() throws Exception {
        AtomicLong now = new AtomicLong();
        MinimumRate rate = new MinimumRate(1024, 10 * SECOND, now::get);
        now.set(9 * SECOND);
        rate.received(0); // within the grace period nothing is judged
        now.set(20 * SECOND);
        rate.received(25 * 1024); // 25 KiB in 20 s: above 1 KiB/s
        now.set(40 * SECOND);
        assertThatThrownBy(() -> rate.received(1)).isInstanceOf(MinimumRateInputStream.TooSlow.class);
    }
}
