package io.sandboxd.daemon.process.journal;

/**
 * One step of a reader through a stream's journal: bytes at the requested offset, a gap (bytes
 * that are not retained, to be skipped), or nothing yet (the reader is caught up).
 *
 * @param data      the bytes read (DATA), else null
 * @param gapLength bytes not retained from the requested offset on (GAP), else 0
 */
public record JournalRead(Kind kind, byte[] data, long gapLength, GapCause cause) {
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

    static final JournalRead NONE = new JournalRead(Kind.NONE, null, 0, null);

    static JournalRead data(byte[] b) {
        return new JournalRead(Kind.DATA, b, 0, null);
    }

    static JournalRead gap(long length, GapCause cause) {
        return new JournalRead(Kind.GAP, null, length, cause);
    }
}
