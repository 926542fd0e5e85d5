package io.sandboxd.client;

import java.util.List;

/** A directory's entries, sorted byte-wise by name; {@code path} has a leading {@code /}. */
public record DirectoryListing(String path, List<FileEntry> entries) {
    public DirectoryListing {
        entries = List.copyOf(entries);
    }
}
