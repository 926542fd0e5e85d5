package io.sandboxd.client;

import java.time.Instant;

/**
 * One entry of a deep listing ({@code TreeEntry} of openapi.yaml): symlinks are listed as
 * themselves, with their target.
 *
 * @param path        relative to the listed directory, {@code a/b}
 * @param pathEncoded only when a name in it is not UTF-8: each segment percent-encoded; else null
 * @param listError   a directory within the depth that could not be read: why; else null
 */
public record TreeEntry(
        String path,
        String pathEncoded,
        String type,
        long size,
        String mode,
        Instant modifiedAt,
        String etag,
        String linkTarget,
        String listError) {
    public boolean isDirectory() {
        return "directory".equals(type);
    }
}
