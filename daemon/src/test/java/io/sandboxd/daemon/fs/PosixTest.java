package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The direct-mapped libc calls, on real files. */
class PosixTest {
    @TempDir
    Path tmp;

    @Test
    void typeAtTellsFilesDirectoriesLinksAndSpecialFilesApartWithoutFollowingLinks() throws Exception {
        Files.writeString(tmp.resolve("file"), "x");
        Files.createDirectory(tmp.resolve("dir"));
        Files.createSymbolicLink(tmp.resolve("link-to-dir"), tmp.resolve("dir"));
        Files.createSymbolicLink(tmp.resolve("dangling"), tmp.resolve("nowhere"));
        Process mkfifo = new ProcessBuilder("mkfifo", tmp.resolve("fifo").toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        int dir = Posix.openat(-100, tmp.toString(), Posix.O_PATH | Posix.O_DIRECTORY);
        try {
            assertThat(Posix.typeAt(dir, "file")).isEqualTo(0100000);
            assertThat(Posix.typeAt(dir, "dir")).isEqualTo(Posix.S_IFDIR);
            assertThat(Posix.typeAt(dir, "link-to-dir")).isEqualTo(Posix.S_IFLNK);
            assertThat(Posix.typeAt(dir, "dangling")).isEqualTo(Posix.S_IFLNK);
            assertThat(Posix.typeAt(dir, "fifo")).isEqualTo(0010000);
            assertThatThrownBy(() -> Posix.typeAt(dir, "missing"))
                    .isInstanceOfSatisfying(LastErrorException.class, e -> assertThat(e.getErrorCode()).isEqualTo(Posix.ENOENT));
            assertThatThrownBy(() -> Posix.typeAt(dir, "file/below"))
                    .isInstanceOfSatisfying(LastErrorException.class, e -> assertThat(e.getErrorCode()).isEqualTo(Posix.ENOTDIR));
        } finally {
            Posix.closeQuietly(dir);
        }
    }

    @Test
    void readlinkatReturnsTheTargetOrNullForNonLinks() throws Exception {
        Files.writeString(tmp.resolve("file"), "x");
        Files.createSymbolicLink(tmp.resolve("link"), Path.of("some/where"));
        int dir = Posix.openat(-100, tmp.toString(), Posix.O_PATH | Posix.O_DIRECTORY);
        try {
            assertThat(Posix.readlinkat(dir, "link")).isEqualTo("some/where");
            assertThat(Posix.readlinkat(dir, "file")).isNull();
        } finally {
            Posix.closeQuietly(dir);
        }
    }
}
