package io.sandboxd.daemon.rest;

import io.sandboxd.logging.JsonText;
import java.nio.charset.StandardCharsets;

/** A minimal JSON writer for our few fixed response shapes (no reflection, no dependency). */
final class Json {
    private final StringBuilder sb = new StringBuilder(256);

    Json raw(String s) {
        sb.append(s);
        return this;
    }

    Json str(String s) {
        JsonText.appendString(sb, s);
        return this;
    }

    Json num(long n) {
        sb.append(n);
        return this;
    }

    byte[] bytes() {
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] error(String code, String message) {
        return new Json()
                .raw("{\"code\":")
                .str(code)
                .raw(",\"message\":")
                .str(message)
                .raw("}\n")
                .bytes();
    }
}
