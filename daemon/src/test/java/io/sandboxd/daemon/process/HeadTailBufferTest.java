package io.sandboxd.daemon.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HeadTailBufferTest {

    /** Reference: keep everything, then cut the middle. */
    static byte[] expected(byte[] all, int limit) {
        if (all.length <= limit) {
            return all;
        }
        int head = limit / 2 + limit % 2;
        int tail = limit / 2;
        byte[] out = new byte[limit];
        System.arraycopy(all, 0, out, 0, head);
        System.arraycopy(all, all.length - tail, out, head, tail);
        return out;
    }

    @Test
    void matchesTheReferenceForRandomWriteSequences() {
        Random rnd = new Random(42);
        for (int round = 0; round < 3000; round++) {
            int limit = rnd.nextInt(64);
            HeadTailBuffer b = new HeadTailBuffer(limit);
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            int writes = rnd.nextInt(20);
            for (int w = 0; w < writes; w++) {
                byte[] data = new byte[rnd.nextInt(3) == 0 ? rnd.nextInt(200) : rnd.nextInt(10)];
                rnd.nextBytes(data);
                int off = data.length == 0 ? 0 : rnd.nextInt(data.length);
                int len = data.length - off;
                b.write(data, off, len);
                all.write(data, off, len);
            }
            byte[] want = expected(all.toByteArray(), limit);
            assertThat(b.toByteArray()).as("round %d limit %d", round, limit).isEqualTo(want);
            assertThat(b.dropped() + b.toByteArray().length)
                    .as("every byte counted")
                    .isEqualTo(all.size());
            assertThat(b.dropped()).isEqualTo(all.size() - want.length);
        }
    }

    @Test
    void memoryStaysWithinTheLimitForHugeInput() {
        HeadTailBuffer b = new HeadTailBuffer(1024);
        byte[] chunk = new byte[32 * 1024];
        for (int i = 0; i < 10_000; i++) {
            Arrays.fill(chunk, (byte) i);
            b.write(chunk, 0, chunk.length);
        }
        assertThat(b.toByteArray()).hasSize(1024);
        assertThat(b.dropped()).isEqualTo(10_000L * chunk.length - 1024);
        assertThat(b.toByteArray()[1023]).isEqualTo((byte) 9_999);
        assertThat(b.toByteArray()[0]).isEqualTo((byte) 0);
    }
}
