package io.sandboxd.daemon.fs;

import java.time.Instant;

/**
 * One listing entry (runtime-contract §2.3). Symlinks are reported as their target. The name is bytes:
 * it need not be UTF-8.
 *
 * @param mode permission bits only, e.g. 0644
 */
public record FileEntry(Name name, long size, boolean directory, Instant modifiedAt, int mode) {}
