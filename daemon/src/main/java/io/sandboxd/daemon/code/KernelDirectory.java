package io.sandboxd.daemon.code;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.os.ChildCredentials;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Map;
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

    /**
     * A --run-as-user kernel reads its connection file itself, so every directory above this one
     * must be searchable for that user (a --state-dir of mode 0700 is not): said here, at
     * CreateContext, rather than as a kernel that exits at once. Mode bits only (an ACL that
     * grants more is not read).
     *
     * @throws SandboxException FAILED_PRECONDITION naming the directory the user cannot search
     */
    void checkReachableBy(ChildCredentials user) throws SandboxException {
        if (user.inherits()) {
            return;
        }
        for (Path p = path.getParent(); p != null; p = p.getParent()) {
            Map<String, Object> a;
            try {
                a = Files.readAttributes(p, "unix:mode,uid,gid");
            } catch (IOException | UnsupportedOperationException e) {
                return; // cannot tell: let the kernel try
            }
            if (!searchable((Integer) a.get("mode"), (Integer) a.get("uid"), (Integer) a.get("gid"), user)) {
                throw new SandboxException(
                        ErrorKind.FAILED_PRECONDITION,
                        "kernels run as --run-as-user " + user.uid() + " cannot reach their connection files in"
                                + " --state-dir: " + p + " is not searchable for that user (give it o+x)");
            }
        }
    }

    /** Whether {@code user} may search (x) a directory with these mode bits and owner (POSIX rules, root may). */
    static boolean searchable(int mode, int ownerUid, int ownerGid, ChildCredentials user) {
        if (user.uid() == 0) {
            return true;
        }
        if (ownerUid == user.uid()) {
            return (mode & 0100) != 0;
        }
        boolean inGroup = ownerGid == user.gid();
        for (int g : user.groups()) {
            inGroup |= g == ownerGid;
        }
        return (mode & (inGroup ? 0010 : 0001)) != 0;
    }

    void delete() {
        deleteTree(path);
    }

    /**
     * Deletes the connection files whose names start with {@code prefix}: ipykernel rewrites its
     * file while starting, so one killed just then can leave a file behind its own deletion.
     */
    void deleteFiles(String prefix) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(path, prefix + "*.json")) {
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            // the whole directory goes at shutdown and at the next start
        }
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
