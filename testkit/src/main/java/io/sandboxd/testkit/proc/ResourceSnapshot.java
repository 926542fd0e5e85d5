package io.sandboxd.testkit.proc;

import java.util.Locale;
import java.util.OptionalLong;

/**
 * What a process holds at one moment: threads, open fds, resident memory and its private dirty
 * part, Java heap used after a full GC (only measured for a JVM, on request), and its live and
 * zombie descendants.
 */
public record ResourceSnapshot(
        int threads,
        int fds,
        long rssBytes,
        long privateDirtyBytes,
        OptionalLong heapAfterGcBytes,
        int liveDescendants,
        int zombies) {

    public String describe() {
        return String.format(
                Locale.ROOT,
                "threads=%d fds=%d rss=%.1fMiB privateDirty=%.1fMiB heapAfterGC=%s descendants=%d zombies=%d",
                threads,
                fds,
                mib(rssBytes),
                mib(privateDirtyBytes),
                heapAfterGcBytes.isPresent()
                        ? String.format(Locale.ROOT, "%.1fMiB", mib(heapAfterGcBytes.getAsLong()))
                        : "n/a",
                liveDescendants,
                zombies);
    }

    private static double mib(long bytes) {
        return bytes / 1048576.0;
    }
}
