package io.sandboxd.reliability.proc;

import java.util.OptionalLong;

/**
 * What a daemon holds at one moment: threads, open fds, resident memory, Java heap used after a
 * full GC (if measurable), live descendant processes and zombie descendants.
 */
public record ResourceSnapshot(int threads, int fds, long rssBytes, OptionalLong heapAfterGcBytes,
                               int liveChildren, int zombies) {

    public String describe() {
        return String.format(java.util.Locale.ROOT, "threads=%d fds=%d rss=%.1fMiB heapAfterGC=%s children=%d zombies=%d",
                threads, fds, rssBytes / 1048576.0,
                heapAfterGcBytes.isPresent() ? String.format(java.util.Locale.ROOT, "%.1fMiB", heapAfterGcBytes.getAsLong() / 1048576.0) : "n/a",
                liveChildren, zombies);
    }
}
