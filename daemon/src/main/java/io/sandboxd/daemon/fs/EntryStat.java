package io.sandboxd.daemon.fs;

import java.time.Instant;
import java.util.List;

/**
 * One entry as {@code stat} describes it (runtime-contract §4.3).
 *
 * @param path        the entry's real path below the root (no symlink in it but, unfollowed, the last)
 * @param mode        permission and special bits ({@code 07777})
 * @param etag        regular files only: the very ETag {@code GET /v1/files} sends; else null
 * @param linkTarget  symlinks only: the target as stored, bytes; else null
 * @param link        symlinks only: where the target leads, confined as any path; else null
 */
public record EntryStat(
        List<Name> path,
        EntryType type,
        long size,
        int mode,
        Instant modifiedAt,
        String etag,
        byte[] linkTarget,
        LinkResolution link) {

    /** Where a symlink leads when it is followed the way every API path is (confined to the root). */
    public enum LinkResolution {
        /** To an existing entry inside the root. */
        INSIDE("inside"),
        /** Out of the root: every API path through it is refused. */
        OUTSIDE("outside"),
        /** To nothing: a missing name, a loop, a non-directory in the middle. */
        DANGLING("dangling");

        private final String wireName;

        LinkResolution(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }
}
