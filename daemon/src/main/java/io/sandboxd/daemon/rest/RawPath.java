package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code {path}} of {@code /v1/files/{path}}: everything after the prefix in the raw
 * (still percent-encoded) request URI, decoded exactly once into bytes (runtime-contract §2.1). Reading
 * the raw URI is what makes {@code dir%2Fsub} and {@code %2E%2E} reach us unnormalised; decoding
 * to bytes, not text, is what lets {@code %FF%FE} address a name that is not UTF-8, as upstream
 * does. A NUL byte is refused later ({@link io.sandboxd.daemon.fs.UserPath}).
 */
final class RawPath {
    static final String PREFIX = "/v1/files";

    private RawPath() {}

    static boolean isFilesPath(String rawUri) {
        return rawUri.equals(PREFIX) || rawUri.startsWith(PREFIX + "/");
    }

    /** The files path of this request, also when {@link DotSegmentsAboveRoot} stood in for it. */
    static byte[] filesPath(jakarta.servlet.http.HttpServletRequest request) throws SandboxException {
        Object raw = request.getAttribute(DotSegmentsAboveRoot.RAW_PATH);
        return filesPath(raw instanceof String s ? s : request.getRequestURI());
    }

    /** @param rawUri the request URI path as sent, without query */
    static byte[] filesPath(String rawUri) throws SandboxException {
        if (!isFilesPath(rawUri)) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "no such route");
        }
        String rest = rawUri.substring(PREFIX.length());
        if (rest.startsWith("/")) {
            rest = rest.substring(1);
        }
        return decode(rest);
    }

    static byte[] decode(String s) throws SandboxException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw badEscape();
                }
                int hi = hex(s.charAt(i + 1));
                int lo = hex(s.charAt(i + 2));
                if (hi < 0 || lo < 0) {
                    throw badEscape();
                }
                out.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x80) {
                out.write(c);
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
                    b = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                    i++;
                }
                out.write(b, 0, b.length);
            }
        }
        return out.toByteArray();
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static SandboxException badEscape() {
        return new SandboxException(ErrorKind.INVALID_ARGUMENT, "path has an invalid percent-encoding");
    }
}
