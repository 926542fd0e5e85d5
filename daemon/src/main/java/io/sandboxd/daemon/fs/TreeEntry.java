package io.sandboxd.daemon.fs;

import java.time.Instant;
import java.util.List;

/**
 * One entry of a deep listing (runtime-contract §4.3), described as it is (a symlink is a
 * symlink, never followed).
 *
 * @param path       relative to the listed directory
 * @param mode       permission and special bits ({@code 07777})
 * @param etag       regular files: the ETag {@code GET /v1/files} sends; else null
 * @param linkTarget symlinks: the target as stored; else null
 * @param listError  a directory the listing should have entered but could not read: why; else null
 */
public record TreeEntry(
        List<Name> path,
        EntryType type,
        long size,
        int mode,
        Instant modifiedAt,
        String etag,
        byte[] linkTarget,
        String listError) {}
