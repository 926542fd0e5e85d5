package io.sandboxd.daemon.fs;

/**
 * What one archive upload may hold (runtime-contract §4.3); beyond either the upload is refused
 * with 400 naming the flag, and nothing is left behind.
 *
 * @param maxBytes   file content in all entries together, uncompressed ({@code --archive-max-bytes})
 * @param maxEntries entries of any kind ({@code --archive-max-entries})
 */
public record ArchiveLimits(long maxBytes, long maxEntries) {
    public static final long DEFAULT_MAX_BYTES = 4L * 1024 * 1024 * 1024;
    public static final long DEFAULT_MAX_ENTRIES = 1_000_000;

    public static ArchiveLimits defaults() {
        return new ArchiveLimits(DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES);
    }
}
