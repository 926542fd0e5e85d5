package io.sandboxd.daemon.fs;

import java.time.Instant;

/**
 * What conditional requests need to know about a regular file.
 *
 * @param etag strong validator: changes whenever the inode, size or mtime (ns) changes
 */
public record FileInfo(long size, Instant modifiedAt, String etag) {}
