package io.sandboxd.controller.core;

import java.nio.charset.StandardCharsets;

/** 32-bit FNV-1a over UTF-8 bytes as 8 lowercase hex digits: upstream's NameHash. */
public final class NameHash {
    private static final int OFFSET_BASIS = 0x811c9dc5;
    private static final int PRIME = 16777619;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private NameHash() {}

    public static String of(String s) {
        int h = OFFSET_BASIS;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= (b & 0xff);
            h *= PRIME;
        }
        char[] out = new char[8];
        for (int i = 7; i >= 0; i--) {
            out[i] = HEX[h & 0xf];
            h >>>= 4;
        }
        return new String(out);
    }
}
