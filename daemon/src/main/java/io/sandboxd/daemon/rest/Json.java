package io.sandboxd.daemon.rest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.function.Consumer;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;
import tools.jackson.core.util.JsonRecyclerPools;

/**
 * Every JSON body the REST API writes goes through Jackson's streaming generator (jackson-core only:
 * no tree, no reflection), configured to escape exactly as upstream's Go encoder does, so the bytes
 * stay what upstream's SDKs read: {@code <>&}, U+007F, U+2028/9 and every control character but
 * {@code \n \r \t} as lower-case {@code \}{@code u00xx}; a lone surrogate escaped too, so the output
 * is always valid UTF-8; a surrogate pair as its 4-byte UTF-8.
 */
final class Json {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .characterEscapes(new GoEscapes())
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
            .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
            // a listing that fails half-way must not be closed into valid-looking JSON, nor close
            // or flush (commit) the response the error body still has to go to
            .disable(StreamWriteFeature.AUTO_CLOSE_CONTENT)
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .disable(StreamWriteFeature.FLUSH_PASSED_TO_STREAM)
            // SSE frames several root objects into one stream: nothing between them but our own bytes
            .rootValueSeparator((String) null)
            // a generator borrows an 8 KB buffer; keep a few for reuse, not one per peak request
            .recyclerPool(JsonRecyclerPools.newBoundedPool(4))
            .build();

    private Json() {}

    /**
     * A generator buffering into {@code out} (8 KB at a time). {@link JsonGenerator#close()} flushes
     * what is buffered into {@code out} but neither flushes nor closes {@code out} itself.
     */
    static JsonGenerator to(OutputStream out) {
        return FACTORY.createGenerator(out);
    }

    /** A small body: one JSON value and a newline, as every REST response ends. */
    static byte[] bytes(Consumer<JsonGenerator> value) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(128);
        try (JsonGenerator g = to(buf)) {
            value.accept(g);
            g.writeRaw('\n');
        }
        return buf.toByteArray();
    }

    /** The uniform error body {@code {"code","message"}} (runtime-contract §2.2). */
    static byte[] error(String code, String message) {
        return bytes(g -> {
            g.writeStartObject();
            g.writeStringProperty("code", code);
            g.writeStringProperty("message", message);
            g.writeEndObject();
        });
    }

    /** The stream's own {@link IOException} (client gone, reset) from Jackson's unchecked wrapper. */
    static IOException unwrap(JacksonIOException e) {
        return e.getCause();
    }

    /** Go's {@code encoding/json} escapes ({@code HTMLEscape} on), as upstream's daemon writes them. */
    private static final class GoEscapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private static final SerializedString LS = new SerializedString("\\u2028");
        private static final SerializedString PS = new SerializedString("\\u2029");

        private final int[] ascii = new int[128];

        GoEscapes() {
            for (int c = 0; c < 0x20; c++) {
                ascii[c] = ESCAPE_STANDARD; // backslash-u-00xx, also for \b and \f (Jackson's default writes \b \f)
            }
            ascii['\n'] = 'n';
            ascii['\r'] = 'r';
            ascii['\t'] = 't';
            ascii['"'] = '"';
            ascii['\\'] = '\\';
            ascii['<'] = ESCAPE_STANDARD;
            ascii['>'] = ESCAPE_STANDARD;
            ascii['&'] = ESCAPE_STANDARD;
            ascii[0x7f] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return ch == '\u2028' ? LS : ch == '\u2029' ? PS : null;
        }
    }
}
