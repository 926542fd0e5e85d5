package io.sandboxd.daemon.process.journal;

/**
 * One step of a reader through a stream's journal: bytes at the requested offset (in the reader's
 * buffer), a gap (bytes that are not retained, to be skipped), or nothing yet (the reader is
 * caught up).
 *
 * @param length    bytes read into the reader's buffer (DATA), else 0
 * @param gapLength bytes not retained from the requested offset on (GAP), else 0
 */
public record JournalRead(Kind kind, int length, long gapLength, GapCause cause) {
    public enum Kind {
        DATA,
        GAP,
        NONE
    }

    /** Why bytes are missing. */
    public enum GapCause {
        RETENTION,
        WRITE_FAILED,
        /** Output of a {@code process.v1} Start from before its first attach: never journalled. */
        NOT_RECORDED
    }

    static final JournalRead NONE = new JournalRead(Kind.NONE, 0, 0, null);

    static JournalRead data(int length) {
        return new JournalRead(Kind.DATA, length, 0, null);
    }

    static JournalRead gap(long length, GapCause cause) {
        return new JournalRead(Kind.GAP, 0, length, cause);
    }
}
