package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxRootTest {
    @TempDir
    Path tmp;

    Path root;
    SandboxRoot sr;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.toRealPath().resolve("ws"));
        sr = new SandboxRoot(root);
    }

    @AfterEach
    void tearDown() {
        sr.close();
    }

    static ErrorKind kindOf(ThrowingRunnable r) {
        try {
            r.run();
        } catch (SandboxException e) {
            return e.kind();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return null;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void userPathParsing() throws Exception {
        String r = root.toString();
        assertThat(UserPath.parse("", r).segments()).isEmpty();
        assertThat(UserPath.parse("a//b/./c/", r).segments()).map(Name::display).containsExactly("a", "b", "c");
        assertThat(UserPath.parse("a/../b", r).segments()).map(Name::display).containsExactly("b");
        assertThat(UserPath.parse("/etc/passwd", r).segments())
                .map(Name::display)
                .containsExactly("etc", "passwd");
        assertThat(UserPath.parse(r + "/x", r).segments()).map(Name::display).containsExactly("x");
        assertThat(UserPath.parse(r, r).segments()).isEmpty();
        java.util.List<String> evil = UserPath.parse(r + "-evil/x", r).segments().stream()
                .map(Name::display)
                .toList();
        assertThat(evil).endsWith(root.getFileName() + "-evil", "x").hasSize(root.getNameCount() + 1);
        assertThat(kindOf(() -> UserPath.parse("..", r))).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(kindOf(() -> UserPath.parse("a/../../x", r))).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(kindOf(() -> UserPath.parse("/../etc", r))).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(kindOf(() -> UserPath.parse("../ws-evil/f", r))).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(kindOf(() -> UserPath.parse("a\0b", r))).isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThat(kindOf(() -> UserPath.parse("x".repeat(256), r))).isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThat(kindOf(() -> UserPath.parse("x/".repeat(2100), r))).isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThat(kindOf(() -> UserPath.parse("d/.sandboxd-upload-1.tmp", r))).isEqualTo(ErrorKind.INVALID_ARGUMENT);
    }

    @Test
    void workingDirectorySemantics() throws Exception {
        Files.createDirectories(root.resolve("sub/deeper"));
        Files.writeString(root.resolve("file"), "x");
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.createSymbolicLink(root.resolve("esc"), outside);
        Files.createSymbolicLink(root.resolve("insub"), Path.of("sub"));
        assertThat(sr.resolveWorkingDirectory(null)).isEqualTo(root);
        assertThat(sr.resolveWorkingDirectory("")).isEqualTo(root);
        assertThat(sr.resolveWorkingDirectory("sub")).isEqualTo(root.resolve("sub"));
        assertThat(sr.resolveWorkingDirectory("/sub/deeper")).isEqualTo(root.resolve("sub/deeper"));
        assertThat(sr.resolveWorkingDirectory(root + "/sub")).isEqualTo(root.resolve("sub"));
        assertThat(sr.resolveWorkingDirectory("insub/deeper")).isEqualTo(root.resolve("sub/deeper"));
        assertThatThrownBy(() -> sr.resolveWorkingDirectory("../.."))
                .isInstanceOfSatisfying(
                        SandboxException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED));
        assertThatThrownBy(() -> sr.resolveWorkingDirectory("esc"))
                .isInstanceOfSatisfying(
                        SandboxException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED));
        assertThatThrownBy(() -> sr.resolveWorkingDirectory("nope/x"))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.NOT_FOUND);
                    assertThat(e.getMessage()).contains("nope/x");
                });
        assertThatThrownBy(() -> sr.resolveWorkingDirectory("file"))
                .isInstanceOfSatisfying(
                        SandboxException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
    }

    @Test
    void symlinkLoopsAndLongChainsAreBounded() throws Exception {
        Files.createSymbolicLink(root.resolve("loop"), Path.of("loop"));
        assertThat(kindOf(() -> sr.resolve(b("loop/x"), SandboxRoot.Mode.FOLLOW).close()))
                .isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThat(kindOf(() -> sr.resolve(b("loop"), SandboxRoot.Mode.FOLLOW).close()))
                .isEqualTo(ErrorKind.INVALID_ARGUMENT);
        try (SandboxRoot.Resolved r = sr.resolve(b("loop"), SandboxRoot.Mode.NOFOLLOW_LAST)) {
            assertThat(r.name()).isEqualTo(Name.of("loop"));
        }
    }

    /**
     * A process in the sandbox swaps a directory for a symlink to the outside as fast as it can
     * while we read and write through it: we must never read or create anything outside.
     */
    @Test
    void swappedSymlinkNeverLetsAnOperationEscape() throws Exception {
        Path outside = Files.createDirectories(tmp.toRealPath().resolve("outside"));
        Files.writeString(outside.resolve("f"), "SECRET");
        Path real = Files.createDirectories(root.resolve("real"));
        Files.writeString(real.resolve("f"), "inside");
        Path swap = root.resolve("swap");
        Path linkIn = root.resolve("link-in");
        Path linkOut = root.resolve("link-out");
        Files.createSymbolicLink(linkIn, Path.of("real"));
        Files.createSymbolicLink(linkOut, outside);
        FileStore store = new FileStore(sr, DirectBuffers.forFileContent());
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread swapper = new Thread(() -> {
            Path tmpLink = root.resolve("swap.tmp");
            boolean in = true;
            while (!stop.get()) {
                try {
                    Files.deleteIfExists(tmpLink);
                    Files.createSymbolicLink(tmpLink, in ? Path.of("real") : outside);
                    Files.move(
                            tmpLink,
                            swap,
                            java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    in = !in;
                } catch (Exception ignored) {
                    // keep swapping
                }
            }
        });
        Files.createSymbolicLink(swap, Path.of("real"));
        assertThat(((ReadResult.File) store.read(b("swap/f"))).file().info().size())
                .isEqualTo(6);
        swapper.start();
        int insideReads = 0;
        try {
            long end = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < end) {
                try {
                    ReadResult rr = store.read(b("swap/f"));
                    try (OpenFile of = ((ReadResult.File) rr).file()) {
                        java.io.ByteArrayOutputStream bb = new java.io.ByteArrayOutputStream();
                        of.sendTo(0, Math.min(16, of.info().size()), new ContentSink() {
                            @Override
                            public void write(java.nio.ByteBuffer chunk) {
                                while (chunk.hasRemaining()) {
                                    bb.write(chunk.get());
                                }
                            }

                            @Override
                            public boolean writesBuffersAsIs() {
                                return false;
                            }
                        });
                        String s = bb.toString();
                        assertThat(s).isEqualTo("inside");
                        insideReads++;
                    }
                } catch (SandboxException e) {
                    assertThat(e.kind()).isIn(ErrorKind.PERMISSION_DENIED, ErrorKind.NOT_FOUND, ErrorKind.CONFLICT);
                }
                try {
                    store.write(
                            b("swap/new"),
                            sink -> sink.write(java.nio.ByteBuffer.wrap("w".getBytes())),
                            new WriteOptions(
                                    WriteOptions.DEFAULT_MODE,
                                    java.util.Optional.empty(),
                                    java.util.Optional.empty(),
                                    false));
                } catch (SandboxException e) {
                    assertThat(e.kind()).isIn(ErrorKind.PERMISSION_DENIED, ErrorKind.NOT_FOUND, ErrorKind.CONFLICT);
                }
                try {
                    store.delete(b("swap/f2"), false);
                } catch (SandboxException e) {
                    assertThat(e.kind()).isIn(ErrorKind.PERMISSION_DENIED, ErrorKind.NOT_FOUND, ErrorKind.CONFLICT);
                }
            }
        } finally {
            stop.set(true);
            swapper.join();
        }
        assertThat(outside.resolve("new")).doesNotExist();
        assertThat(Files.readString(outside.resolve("f"))).isEqualTo("SECRET");
        assertThat(insideReads).isPositive();
    }

    private static byte[] b(String path) {
        return path.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
