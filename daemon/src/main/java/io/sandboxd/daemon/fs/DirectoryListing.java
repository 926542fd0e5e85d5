package io.sandboxd.daemon.fs;

import java.util.List;

/** A directory's entries, sorted by name byte-wise (UTF-8), without {@code .}/{@code ..}. */
public record DirectoryListing(List<FileEntry> entries) {
    public DirectoryListing {
        entries = List.copyOf(entries);
    }
}
