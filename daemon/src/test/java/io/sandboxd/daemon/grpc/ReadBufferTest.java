package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reader thread's journal read buffers, over a real file. */
class ReadBufferTest {
    @TempDir
    Path dir;

    @Test
    void readsStartOnACacheLineAndTheDataIsExactlyTheBytesRead() throws Exception {
        int chunk = AttachPump.REPLAY_CHUNK; // as the reader threads' (malloc puts it 16 bytes past a page)
        byte[] bytes = new byte[3 * chunk + 7];
        new Random(18).nextBytes(bytes);
        Path file = Files.write(dir.resolve("segment"), bytes);
        ReadBuffer buffer = new ReadBuffer(chunk);

        try (FileChannel ch = FileChannel.open(file)) {
            for (int offset = 0; offset < bytes.length; ) {
                ByteBuffer target = buffer.target(chunk);
                // The kernel's page-cache copy is 5x slower into a destination off a cache line.
                assertThat(target.alignmentOffset(0, 64)).isZero();
                assertThat(target.position()).isZero();
                assertThat(target.limit()).isEqualTo(chunk);
                int n = ch.read(target, offset);

                ByteString data = buffer.data(n);

                assertThat(data.toByteArray())
                        .as("bytes %d..%d", offset, offset + n)
                        .isEqualTo(java.util.Arrays.copyOfRange(bytes, offset, offset + n));
                offset += n;
            }
        }
    }

    @Test
    void holdsItsWholeCapacityWhateverItsSize() {
        for (int capacity : new int[] {1, 63, 64, 65, 1000, 4097, AttachPump.CHUNK, AttachPump.REPLAY_CHUNK}) {
            ReadBuffer buffer = new ReadBuffer(capacity);
            assertThat(buffer.target(capacity).remaining())
                    .as("capacity %d", capacity)
                    .isEqualTo(capacity);
            assertThat(buffer.target(capacity).alignmentOffset(0, 64))
                    .as("capacity %d", capacity)
                    .isZero();
            assertThat(buffer.target(1).remaining()).isEqualTo(1);
        }
    }
}
