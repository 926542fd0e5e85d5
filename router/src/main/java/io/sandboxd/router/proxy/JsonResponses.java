package io.sandboxd.router.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.ByteArrayOutputStream;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

/**
 * Small JSON bodies the router answers itself: {@code {"detail": "..."}} errors and probe replies
 * ({@code {"status": "..."}}), written by Jackson's streaming generator. Strings are escaped as the
 * router always has: {@code \" \\ \n \r \t}, every other control character as lower-case
 * {@code \}{@code u00xx}, everything else as its UTF-8.
 */
public final class JsonResponses {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .characterEscapes(new ControlEscapes())
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
            .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
            .build();

    private JsonResponses() {}

    public static FullHttpResponse error(ByteBufAllocator alloc, int status, String detail) {
        return json(alloc, status, detail(detail));
    }

    /** A probe's answer, {@code {"status":"ok"}} and the like. */
    public static FullHttpResponse status(ByteBufAllocator alloc, int httpStatus, String status) {
        return json(alloc, httpStatus, status(status));
    }

    public static FullHttpResponse json(ByteBufAllocator alloc, int status, byte[] body) {
        ByteBuf buf = alloc.buffer(body.length).writeBytes(body);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), buf);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return r;
    }

    /** {@code {"detail":"..."}}: the router's error body. */
    static byte[] detail(String detail) {
        return object("detail", detail);
    }

    /** {@code {"status":"..."}}: the probes' body. */
    static byte[] status(String status) {
        return object("status", status);
    }

    private static byte[] object(String name, String value) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(64 + value.length());
        try (JsonGenerator g = FACTORY.createGenerator(buf)) {
            g.writeStartObject();
            g.writeStringProperty(name, value);
            g.writeEndObject();
        }
        return buf.toByteArray();
    }

    /** Only what JSON requires, and {@code \b \f} as {@code \}{@code u0008 \}{@code u000c} (Jackson's default is the short form). */
    private static final class ControlEscapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private final int[] ascii = new int[128];

        ControlEscapes() {
            for (int c = 0; c < 0x20; c++) {
                ascii[c] = ESCAPE_STANDARD;
            }
            ascii['\n'] = 'n';
            ascii['\r'] = 'r';
            ascii['\t'] = 't';
            ascii['"'] = '"';
            ascii['\\'] = '\\';
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return null;
        }
    }
}
