package io.sandboxd.daemon.fs.watch;

/** What a watch event reports (runtime-contract §4.2); {@link #wireName()} is its {@code type} on the wire. */
public enum EventKind {
    CREATED("created"),
    MODIFIED("modified"),
    DELETED("deleted"),
    /** One event with the old and the new path, when both ends are inside the watched tree. */
    MOVED("moved"),
    ATTRIBUTES("attributes"),
    /** Events were lost or cannot be replayed: the client must list the tree again. */
    RESYNC("resync"),
    /** The watch cannot go on (a limit, or the watched path went away); the stream ends after it. */
    ERROR("error");

    private final String wireName;

    EventKind(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }
}
