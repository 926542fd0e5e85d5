package io.sandboxd.reliability.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.TreeSet;
import java.util.stream.Stream;

/** Every path under a root (relative, '/'-separated, directories suffixed with '/'), read from disk. */
final class FileTree {
    private FileTree() {}

    static TreeSet<String> of(Path root) {
        TreeSet<String> out = new TreeSet<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(p -> !p.equals(root))
                    .forEach(p -> out.add(
                            root.relativize(p).toString().replace('\\', '/') + (Files.isDirectory(p) ? "/" : "")));
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return of(root); // a temp file vanished mid-walk; read again
            }
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
