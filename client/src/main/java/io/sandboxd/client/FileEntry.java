package io.sandboxd.client;

import java.time.Instant;

/**
 * One entry of a directory listing, as the daemon reports it ({@code FileEntry} of openapi.yaml).
 *
 * @param type {@code file} or {@code directory} (symlinks are reported as their targets)
 * @param mode permission bits as the daemon spells them, e.g. {@code 0644}
 */
public record FileEntry(String name, long size, String type, Instant modifiedAt, String mode) {
    public boolean isDirectory() {
        return "directory".equals(type);
    }
}
