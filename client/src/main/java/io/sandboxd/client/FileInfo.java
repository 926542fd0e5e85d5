package io.sandboxd.client;

import java.net.http.HttpHeaders;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the headers of a file or directory response say: size ({@code Content-Length}), ETag,
 * modification time, whether it is a directory (its listing is JSON), and every header as sent.
 */
public record FileInfo(
        String path,
        int status,
        OptionalLong size,
        Optional<String> etag,
        Optional<Instant> lastModified,
        boolean directory,
        HttpHeaders headers) {

    static FileInfo of(String path, int status, HttpHeaders h) {
        OptionalLong size = h.firstValueAsLong("Content-Length");
        Optional<Instant> lm = h.firstValue("Last-Modified").flatMap(v -> {
            try {
                return Optional.of(
                        java.time.ZonedDateTime.parse(v, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                                .toInstant());
            } catch (java.time.format.DateTimeParseException e) {
                return Optional.empty();
            }
        });
        boolean dir = h.firstValue("Content-Type")
                .map(ct -> ct.toLowerCase(java.util.Locale.ROOT).startsWith("application/json"))
                .orElse(false);
        return new FileInfo(path, status, size, h.firstValue("ETag"), lm, dir, h);
    }

    /** {@code Content-Range} of a 206, e.g. {@code bytes 0-99/1000}. */
    public Optional<String> contentRange() {
        return headers.firstValue("Content-Range");
    }
}
