package io.sandboxd.daemon.fs;

import java.time.Instant;

/**
 * One listing entry (CONTRACT §2.3). Symlinks are reported as their target.
 *
 * @param mode permission bits only, e.g. 0644
 */
public record FileEntry(String name, long size, boolean directory, Instant modifiedAt, int mode) {
}
