package io.sandboxd.daemon.fs;

import java.util.Arrays;

/** PAX extended header records ({@code "<len> <key>=<value>\n"}, POSIX.1-2001), values as bytes. Pure. */
final class PaxRecords {
    private PaxRecords() {}

    /** @return the last value of {@code key}, null when absent or the data is malformed there */
    static byte[] value(byte[] data, String key) {
        byte[] k = key.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] found = null;
        int at = 0;
        while (at < data.length) {
            int sp = at;
            long len = 0;
            while (sp < data.length && data[sp] >= '0' && data[sp] <= '9' && len < Integer.MAX_VALUE) {
                len = len * 10 + (data[sp] - '0');
                sp++;
            }
            if (sp >= data.length || data[sp] != ' ' || len <= sp - at || at + len > data.length) {
                return found;
            }
            int end = (int) (at + len); // one past the record's '\n'
            int keyStart = sp + 1;
            int eq = keyStart;
            while (eq < end && data[eq] != '=') {
                eq++;
            }
            if (eq < end
                    && data[end - 1] == '\n'
                    && eq - keyStart == k.length
                    && Arrays.equals(data, keyStart, eq, k, 0, k.length)) {
                found = Arrays.copyOfRange(data, eq + 1, end - 1);
            }
            at = end;
        }
        return found;
    }
}
