package io.sandboxd.daemon.code;

/**
 * One representation in a MIME bundle. Exactly one of {@code text}, {@code binary} and
 * {@code json} is set, as {@link #kind} says.
 */
public record MimeValue(String mimeType, Kind kind, String text, byte[] binary) {
    public enum Kind {
        /** Textual types as the kernel sent them. */
        TEXT,
        /** Base64 the kernel sent, decoded. */
        BINARY,
        /** A JSON value, serialized; {@link #text} holds it. */
        JSON
    }

    static MimeValue text(String mimeType, String text) {
        return new MimeValue(mimeType, Kind.TEXT, text, null);
    }

    static MimeValue binary(String mimeType, byte[] bytes) {
        return new MimeValue(mimeType, Kind.BINARY, null, bytes);
    }

    static MimeValue json(String mimeType, String json) {
        return new MimeValue(mimeType, Kind.JSON, json, null);
    }

    long size() {
        return kind == Kind.BINARY ? binary.length : Utf8Length.of(text);
    }
}
