package io.sandboxd.daemon.rest;

/**
 * A single {@code Range: bytes=...} request (RFC 9110 §14). Several ranges are answered with the
 * whole file, which the RFC allows.
 *
 * @param first first byte, inclusive
 * @param last  last byte, inclusive
 */
record ByteRange(long first, long last) {
    /** Marker for "no usable Range header": serve the whole representation. */
    static final ByteRange NONE = new ByteRange(-1, -1);
    /** Marker for a syntactically valid but unsatisfiable range (416). */
    static final ByteRange UNSATISFIABLE = new ByteRange(-2, -2);

    long length() {
        return last - first + 1;
    }

    static ByteRange parse(String header, long size) {
        if (header == null) {
            return NONE;
        }
        String h = header.trim();
        if (!h.regionMatches(true, 0, "bytes=", 0, 6)) {
            return NONE;
        }
        String spec = h.substring(6).trim();
        if (spec.contains(",")) {
            return NONE;
        }
        int dash = spec.indexOf('-');
        if (dash < 0) {
            return NONE;
        }
        String a = spec.substring(0, dash).trim();
        String b = spec.substring(dash + 1).trim();
        try {
            if (a.isEmpty()) {
                if (b.isEmpty()) {
                    return NONE;
                }
                long suffix = Long.parseLong(b);
                if (suffix < 0) {
                    return NONE;
                }
                if (suffix == 0 || size == 0) {
                    return UNSATISFIABLE;
                }
                return new ByteRange(Math.max(0, size - suffix), size - 1);
            }
            long first = Long.parseLong(a);
            long last = b.isEmpty() ? size - 1 : Long.parseLong(b);
            if (first < 0 || (!b.isEmpty() && last < first)) {
                return NONE;
            }
            if (first >= size) {
                return UNSATISFIABLE;
            }
            return new ByteRange(first, Math.min(last, size - 1));
        } catch (NumberFormatException e) {
            return NONE;
        }
    }
}
