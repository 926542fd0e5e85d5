package io.sandboxd.daemon.fs;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One file name as the kernel has it: bytes, not necessarily UTF-8 (a process can create any name
 * without {@code /} or NUL). Names travel as these bytes from {@code getdents64} and from the
 * client's percent-decoded path to {@code openat}/{@code unlinkat}; they become text only to be
 * shown ({@link #display()}), never to be used again as a name.
 */
public final class Name implements Comparable<Name> {
    private static final byte[] DOT = {'.'};
    private static final byte[] DOT_DOT = {'.', '.'};
    private final byte[] bytes;

    private Name(byte[] bytes) {
        this.bytes = bytes;
    }

    /** @param bytes taken over, not copied: the caller no longer changes them */
    static Name of(byte[] bytes) {
        return new Name(bytes);
    }

    public static Name of(String name) {
        return new Name(name.getBytes(StandardCharsets.UTF_8));
    }

    /** The bytes themselves (not a copy: callers in this package only read them). */
    byte[] bytes() {
        return bytes;
    }

    public int length() {
        return bytes.length;
    }

    boolean isEmpty() {
        return bytes.length == 0;
    }

    boolean isDot() {
        return Arrays.equals(bytes, DOT);
    }

    boolean isDotDot() {
        return Arrays.equals(bytes, DOT_DOT);
    }

    boolean startsWith(byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** NUL-terminated copy for a libc call. */
    byte[] cString() {
        return Arrays.copyOf(bytes, bytes.length + 1);
    }

    public boolean isUtf8() {
        return Utf8.isValid(bytes);
    }

    /** The name as text, invalid bytes shown as U+FFFD (see {@link Utf8#lossy}). */
    public String display() {
        return Utf8.lossy(bytes);
    }

    /** The name percent-encoded as one path segment: {@code /v1/files/<this>} addresses exactly it. */
    public String percentEncoded() {
        return Utf8.percentEncode(bytes);
    }

    @Override
    public int compareTo(Name o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Name n && Arrays.equals(bytes, n.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return display();
    }
}
