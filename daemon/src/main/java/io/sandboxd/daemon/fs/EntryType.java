package io.sandboxd.daemon.fs;

/** What kind of entry a name is, not following a symlink (runtime-contract §4.3). */
public enum EntryType {
    FILE("file"),
    DIRECTORY("directory"),
    SYMLINK("symlink"),
    FIFO("fifo"),
    SOCKET("socket"),
    CHAR_DEVICE("char_device"),
    BLOCK_DEVICE("block_device");

    private final String wireName;

    EntryType(String wireName) {
        this.wireName = wireName;
    }

    /** The name the API shows: {@code file}, {@code directory}, {@code symlink}, ... */
    public String wireName() {
        return wireName;
    }

    /** @param mode {@code st_mode}, type bits included */
    static EntryType of(int mode) {
        return switch (mode & Posix.S_IFMT) {
            case Posix.S_IFDIR -> DIRECTORY;
            case Posix.S_IFLNK -> SYMLINK;
            case 0010000 -> FIFO;
            case 0140000 -> SOCKET;
            case 0020000 -> CHAR_DEVICE;
            case 0060000 -> BLOCK_DEVICE;
            default -> FILE;
        };
    }
}
