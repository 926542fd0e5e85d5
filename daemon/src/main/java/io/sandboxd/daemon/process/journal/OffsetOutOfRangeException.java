package io.sandboxd.daemon.process.journal;

/** A reader asked for an offset beyond what the stream has written. */
public final class OffsetOutOfRangeException extends Exception {
    public OffsetOutOfRangeException(String message) {
        super(message);
    }
}
