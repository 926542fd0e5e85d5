package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WritebackPacerTest {
    private static final long MIB = 1024 * 1024;

    @Test
    void handsOverEveryByteOnceInOrderAfterEachStep() {
        List<long[]> ranges = new ArrayList<>();
        WritebackPacer p = new WritebackPacer((off, len) -> ranges.add(new long[] {off, len}));
        for (int i = 0; i < 10; i++) {
            p.wrote(3 * MIB); // 30 MiB in 3 MiB writes
        }
        assertThat(ranges)
                .extracting(r -> r[0])
                .containsExactly(0L, 9 * MIB, 18 * MIB); // the last 3 MiB wait for the fsync
        assertThat(ranges).extracting(r -> r[1]).containsOnly(9 * MIB);
    }

    @Test
    void smallFilesNeverCallTheKernel() {
        List<long[]> ranges = new ArrayList<>();
        WritebackPacer p = new WritebackPacer((off, len) -> ranges.add(new long[] {off, len}));
        p.wrote(4096);
        p.wrote(WritebackPacer.STEP - 4097);
        assertThat(ranges).isEmpty();
    }

    @Test
    void aRefusingFileSystemIsAskedOnce() {
        List<long[]> ranges = new ArrayList<>();
        WritebackPacer p = new WritebackPacer((off, len) -> {
            ranges.add(new long[] {off, len});
            return false;
        });
        for (int i = 0; i < 5; i++) {
            p.wrote(WritebackPacer.STEP);
        }
        assertThat(ranges).hasSize(1);
    }

    @Test
    void theRealSyscallAcceptsARangeOfARegularFile(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("f");
        Files.write(f, new byte[(int) (9 * MIB)]);
        int fd = Posix.C.openat(-100, Posix.cstr(f.toString()), Posix.O_WRONLY, 0);
        try {
            assertThat(Posix.C.sync_file_range(fd, 0, 9 * MIB, Posix.SYNC_FILE_RANGE_WRITE))
                    .isZero();
        } finally {
            Posix.C.close(fd);
        }
    }
}
