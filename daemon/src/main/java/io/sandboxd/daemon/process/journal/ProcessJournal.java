package io.sandboxd.daemon.process.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The journal of one process: a directory with the segments of its stdout and stderr, and the
 * readers to wake when something was appended. Deleted when the process is forgotten.
 */
public final class ProcessJournal {
    private final Path dir;
    private final StreamJournal stdout;
    private final StreamJournal stderr;
    private final CopyOnWriteArrayList<Runnable> watchers = new CopyOnWriteArrayList<>();

    /** @param recording false: nothing is written (no file, no directory) until {@link #record()} */
    ProcessJournal(Path dir, long retention, JournalBudget budget, boolean recording) {
        this.dir = dir;
        this.stdout = new StreamJournal(dir, "stdout", retention, budget, recording);
        this.stderr = new StreamJournal(dir, "stderr", retention, budget, recording);
    }

    /** Both streams are journalled from now on (the first attach of a {@code process.v1} Start). */
    public void record() {
        stdout.record();
        stderr.record();
    }

    public StreamJournal stdout() {
        return stdout;
    }

    public StreamJournal stderr() {
        return stderr;
    }

    /** Runs {@code r} after every append (it must only schedule work) until {@link #unwatch}. */
    public void watch(Runnable r) {
        watchers.add(r);
    }

    public void unwatch(Runnable r) {
        watchers.remove(r);
    }

    /** Wakes every watcher: something was appended, or the process ended. */
    public void wake() {
        for (Runnable r : watchers) {
            r.run();
        }
    }

    /** Deletes the files; readers from now on see nothing retained. */
    public void delete() {
        stdout.close();
        stderr.close();
        watchers.clear();
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // the next daemon start removes it
        }
    }
}
