package io.sandboxd.router.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/** Small JSON bodies the router answers itself: {@code {"detail": "..."}} errors and probe replies. */
public final class JsonResponses {
    private JsonResponses() {}

    public static FullHttpResponse error(ByteBufAllocator alloc, int status, String detail) {
        return json(alloc, status, "{\"detail\":" + quote(detail) + "}");
    }

    public static FullHttpResponse json(ByteBufAllocator alloc, int status, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ByteBuf buf = alloc.buffer(bytes.length).writeBytes(bytes);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), buf);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        return r;
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
