package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.LastErrorException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
            assertThat(Posix.typeAt(dir, Name.of("file"))).isEqualTo(0100000);
            assertThat(Posix.typeAt(dir, Name.of("dir"))).isEqualTo(Posix.S_IFDIR);
            assertThat(Posix.typeAt(dir, Name.of("link-to-dir"))).isEqualTo(Posix.S_IFLNK);
            assertThat(Posix.typeAt(dir, Name.of("dangling"))).isEqualTo(Posix.S_IFLNK);
            assertThat(Posix.typeAt(dir, Name.of("fifo"))).isEqualTo(0010000);
            assertThatThrownBy(() -> Posix.typeAt(dir, Name.of("missing")))
                    .isInstanceOfSatisfying(LastErrorException.class, e -> assertThat(e.getErrorCode())
                            .isEqualTo(Posix.ENOENT));
            assertThatThrownBy(() -> Posix.typeAt(dir, Name.of("file/below")))
                    .isInstanceOfSatisfying(LastErrorException.class, e -> assertThat(e.getErrorCode())
                            .isEqualTo(Posix.ENOTDIR));
        } finally {
            Posix.closeQuietly(dir);
        }
    }

    @Test
    void statOfADescriptorAgreesWithTheJdk() throws Exception {
        Path file = tmp.resolve("file");
        Files.write(file, new byte[12345]);
        Files.setLastModifiedTime(
                file, java.nio.file.attribute.FileTime.from(java.time.Instant.parse("2024-05-06T07:08:09.123456789Z")));
        int dir = Posix.openat(-100, tmp.toString(), Posix.O_PATH | Posix.O_DIRECTORY);
        int fd = Posix.openat(dir, "file", Posix.O_RDONLY | Posix.O_NOFOLLOW);
        try {
            java.util.Map<String, Object> jdk = Files.readAttributes(file, "unix:mode,ino,dev,size,lastModifiedTime");
            Posix.Stat st = Posix.stat(fd);
            assertThat(st.mode()).isEqualTo(jdk.get("mode"));
            assertThat(st.type()).isEqualTo(0100000);
            assertThat(st.ino()).isEqualTo(jdk.get("ino"));
            assertThat(st.size()).isEqualTo(12345L);
            java.time.Instant m = ((java.nio.file.attribute.FileTime) jdk.get("lastModifiedTime")).toInstant();
            assertThat(java.time.Instant.ofEpochSecond(st.mtimeSeconds(), st.mtimeNanos()))
                    .isEqualTo(m);
            Posix.Stat d = Posix.stat(dir); // an O_PATH descriptor
            assertThat(d.type()).isEqualTo(Posix.S_IFDIR);
            assertThat(d.dev()).isEqualTo(st.dev());
            assertThat(d.ino()).isEqualTo(Files.readAttributes(tmp, "unix:ino").get("ino"));
        } finally {
            Posix.closeQuietly(fd);
            Posix.closeQuietly(dir);
        }
    }

    @Test
    void readlinkatReturnsTheTargetOrNullForNonLinks() throws Exception {
        Files.writeString(tmp.resolve("file"), "x");
        Files.createSymbolicLink(tmp.resolve("link"), Path.of("some/where"));
        int dir = Posix.openat(-100, tmp.toString(), Posix.O_PATH | Posix.O_DIRECTORY);
        try {
            assertThat(Posix.readlinkat(dir, Name.of("link"))).isEqualTo("some/where".getBytes());
            assertThat(Posix.readlinkat(dir, Name.of("file"))).isNull();
        } finally {
            Posix.closeQuietly(dir);
        }
    }
}
