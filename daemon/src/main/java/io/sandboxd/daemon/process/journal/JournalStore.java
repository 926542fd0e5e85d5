package io.sandboxd.daemon.process.journal;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The journals of one daemon: {@code <state-dir>/journal/<process id>/}. Whatever a previous
 * daemon left there is removed when the store opens (processes do not survive a restart).
 */
public final class JournalStore {
    private final Path root;
    private final JournalBudget budget;

    public JournalStore(Path stateDir, long totalCap) throws IOException {
        this.root = stateDir.resolve("journal");
        this.budget = new JournalBudget(totalCap);
        if (Files.exists(root)) {
            deleteTree(root);
        }
        Files.createDirectories(root);
    }

    public JournalBudget budget() {
        return budget;
    }

    public Path root() {
        return root;
    }

    /** A new journal for process {@code id}, with {@code retention} bytes per stream. */
    public ProcessJournal open(int id, long retention) throws IOException {
        Path dir = root.resolve(Integer.toString(id));
        Files.createDirectories(dir);
        return new ProcessJournal(dir, retention, budget);
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
