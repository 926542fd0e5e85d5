package io.sandboxd.daemon.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Pointer;
import org.junit.jupiter.api.Test;

/** The I/O loop's read buffer: where the kernel copies every output read. */
class OutputBuffersTest {
    @Test
    void theReadBufferStartsOnACacheLineAndHoldsTheWholeSize() {
        // 1 MiB and more: malloc maps it and places it 16 bytes past a page.
        for (int size : new int[] {1, 63, 65, 4096, 256 * 1024, 1 << 20, (1 << 20) + 7}) {
            OutputBuffers b = new OutputBuffers(size);

            assertThat(Pointer.nativeValue(b.readBuffer()) % 64)
                    .as("size %d", size)
                    .isZero();
            assertThat(b.readBuffer().size()).as("size %d", size).isGreaterThanOrEqualTo(size);
            assertThat(b.readBufferSize()).isEqualTo(size);
            assertThat(b.direct(size).remaining()).isEqualTo(size);
        }
    }

    @Test
    void theDirectViewIsTheReadBuffer() {
        OutputBuffers b = new OutputBuffers(4096);
        b.readBuffer().setByte(4095, (byte) 7);

        assertThat(b.direct(4096).get(4095)).isEqualTo((byte) 7);
    }
}
