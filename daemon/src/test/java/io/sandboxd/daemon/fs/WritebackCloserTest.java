package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WritebackCloserTest {
    @TempDir
    Path tmp;

    @Test
    void everyDescriptorHandedOverIsClosedByCloseAndTheContentStays() throws Exception {
        int n = WritebackCloser.IN_FLIGHT * 3; // more than the queue holds: handing over blocks, never drops
        List<Integer> fds = new ArrayList<>();
        int dir = Posix.openat(-100, tmp.toString(), Posix.O_PATH | Posix.O_DIRECTORY);
        try (WritebackCloser closer = new WritebackCloser()) {
            for (int i = 0; i < n; i++) {
                int fd = Posix.openat(dir, "f" + i, Posix.O_WRONLY | Posix.O_CREAT | Posix.O_EXCL, 0644);
                byte[] b = ("file " + i).getBytes();
                try (com.sun.jna.Memory m = new com.sun.jna.Memory(b.length)) {
                    m.write(0, b, 0, b.length);
                    Posix.C.write(fd, com.sun.jna.Pointer.nativeValue(m), b.length);
                }
                fds.add(fd);
                closer.handOver(fd);
            }
        } finally {
            Posix.closeQuietly(dir);
        }
        for (int i = 0; i < n; i++) {
            Path link = Path.of("/proc/self/fd/" + fds.get(i));
            // closed: the number is gone, or reused by something else of this JVM since
            boolean stillOurs = Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    && Files.readSymbolicLink(link).equals(tmp.resolve("f" + i));
            assertThat(stillOurs).as("descriptor of f" + i + " still open").isFalse();
            assertThat(Files.readString(tmp.resolve("f" + i))).isEqualTo("file " + i);
        }
    }
}
