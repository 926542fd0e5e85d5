package io.sandboxd.daemon.fs;

/** What a path holds when read: a regular file's content or a directory's listing. */
public sealed interface ReadResult permits ReadResult.File, ReadResult.Directory {
    record File(OpenFile file) implements ReadResult {}

    /** The listing is open (it holds the directory and its sorted names): close it. */
    record Directory(DirectoryListing listing) implements ReadResult {}
}
