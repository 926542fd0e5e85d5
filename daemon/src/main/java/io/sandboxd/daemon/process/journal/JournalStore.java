package io.sandboxd.daemon.process.journal;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The journals of one daemon: {@code <state-dir>/journal-<daemon pid>-<n>/<process id>/}. When the
 * store opens it removes whatever a previous daemon left (processes do not survive a restart):
 * every {@code journal-<pid>-<n>} whose daemon is no longer running, its own pid's included. Daemons
 * sharing a state directory (tests) leave each other's journals alone.
 */
public final class JournalStore {
    /** Stores opened in this JVM: each has its own directory (tests run several daemons at once). */
    private static final java.util.concurrent.atomic.AtomicInteger INSTANCES =
            new java.util.concurrent.atomic.AtomicInteger();

    private final Path root;
    private final JournalBudget budget;

    public JournalStore(Path stateDir, long totalCap) throws IOException {
        long self = ProcessHandle.current().pid();
        this.root = stateDir.resolve("journal-" + self + "-" + INSTANCES.getAndIncrement());
        this.budget = new JournalBudget(totalCap);
        Files.createDirectories(stateDir);
        try (java.util.stream.Stream<Path> entries = Files.list(stateDir)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                String n = p.getFileName().toString();
                String[] parts = n.split("-");
                if (parts.length == 3 && parts[0].equals("journal") && parts[1].matches("[0-9]{1,18}")) {
                    long pid = Long.parseLong(parts[1]);
                    if (p.equals(root) || ProcessHandle.of(pid).isEmpty()) {
                        deleteTree(p);
                    }
                }
            }
        }
        Files.createDirectories(root);
    }

    public JournalBudget budget() {
        return budget;
    }

    public Path root() {
        return root;
    }

    /**
     * A new journal for process {@code id}, with {@code retention} bytes per stream. Never fails:
     * if the directory cannot be made, the journal's writes fail and its readers get gaps. Its
     * directory is made with its first segment.
     *
     * @param recording false: appends only count bytes until {@link ProcessJournal#record()}
     */
    public ProcessJournal open(int id, long retention, boolean recording) {
        return new ProcessJournal(root.resolve(Integer.toString(id)), retention, budget, recording);
    }

    /** A journal that records from the start. */
    public ProcessJournal open(int id, long retention) {
        return open(id, retention, true);
    }

    /** Removes the whole journal directory (daemon shutdown). */
    public void deleteAll() {
        try {
            deleteTree(root);
        } catch (IOException e) {
            // the next start removes what is left
        }
    }

    static void deleteTree(Path p) throws IOException {
        Files.walkFileTree(p, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
