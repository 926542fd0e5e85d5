package io.sandboxd.client;

import java.time.Instant;

/**
 * One entry as {@code GET /sandboxd/v1alpha1/fs/stat} describes it (runtime-contract §4.3).
 *
 * @param path         its real path below the root, {@code /a/b}
 * @param pathEncoded  only when a name in it is not UTF-8: each segment percent-encoded; else null
 * @param type         {@code file}, {@code directory}, {@code symlink}, {@code fifo}, {@code socket},
 *                     {@code char_device} or {@code block_device}
 * @param mode         permission and special bits, four octal digits ({@code 0644})
 * @param etag         regular files: the ETag {@code GET /v1/files} sends; else null
 * @param linkTarget   symlinks: the target as stored; else null
 * @param linkResolves symlinks: {@code inside}, {@code outside} (refused by the API) or {@code dangling}; else null
 */
public record EntryStat(
        String path,
        String pathEncoded,
        String type,
        long size,
        String mode,
        Instant modifiedAt,
        String etag,
        String linkTarget,
        String linkResolves) {
    public boolean isDirectory() {
        return "directory".equals(type);
    }

    public boolean isSymlink() {
        return "symlink".equals(type);
    }
}
