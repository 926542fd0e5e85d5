package io.sandboxd.daemon.fs.watch;

/** The kind of entry an event is about; {@link #wireName()} is its {@code entry} on the wire. */
public enum EntryType {
    FILE("file"),
    DIRECTORY("directory"),
    SYMLINK("symlink"),
    /** A FIFO, socket or device node. */
    OTHER("other");

    private final String wireName;

    EntryType(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** From the {@code S_IFMT} bits of a mode. */
    static EntryType ofFileType(int fileType) {
        return switch (fileType) {
            case 0100000 -> FILE;
            case 0040000 -> DIRECTORY;
            case 0120000 -> SYMLINK;
            default -> OTHER;
        };
    }
}
