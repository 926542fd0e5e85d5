package io.sandboxd.daemon.code;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Where this daemon's kernel connection files live: {@code <state-dir>/kernels-<daemon pid>-<n>},
 * mode 0711 (a --run-as-user kernel reaches its own file, nobody lists them). At start it removes
 * what daemons no longer running left there; daemons sharing a state directory (tests) leave each
 * other's alone.
 */
final class KernelDirectory {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Path path;

    KernelDirectory(Path stateDir) throws IOException {
        long self = ProcessHandle.current().pid();
        path = stateDir.resolve("kernels-" + self + "-" + INSTANCES.getAndIncrement());
        Files.createDirectories(stateDir);
        try (Stream<Path> entries = Files.list(stateDir)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                String[] parts = p.getFileName().toString().split("-");
                if (parts.length == 3 && parts[0].equals("kernels") && parts[1].matches("[0-9]{1,18}")) {
                    long pid = Long.parseLong(parts[1]);
                    if (p.equals(path) || ProcessHandle.of(pid).isEmpty()) {
                        deleteTree(p);
                    }
                }
            }
        }
        Files.createDirectory(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx--x--x")); // whatever the umask
    }

    Path path() {
        return path;
    }

    void delete() {
        deleteTree(path);
    }

    private static void deleteTree(Path p) {
        try (Stream<Path> s = Files.walk(p)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException e) {
                    // left for the next start
                }
            });
        } catch (IOException e) {
            // already gone
        }
    }
}
