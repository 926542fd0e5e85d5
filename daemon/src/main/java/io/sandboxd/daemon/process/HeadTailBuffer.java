package io.sandboxd.daemon.process;

import java.util.Arrays;

/**
 * Keeps at most {@code limit} bytes of a stream: the first half and the last half, dropping the
 * middle (runtime-contract §1.4). Memory grows with what was kept, never beyond {@code limit}.
 * Not thread-safe: one pump writes, the reader reads after the pump finished.
 */
public final class HeadTailBuffer {
    private final int headCap;
    private final int tailCap;
    private byte[] head = new byte[0];
    private int headLen;
    private byte[] tail = new byte[0];
    private int tailStart; // index of the oldest tail byte once the ring is full
    private int tailLen;
    private long total;

    public HeadTailBuffer(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit < 0");
        }
        this.headCap = limit / 2 + limit % 2;
        this.tailCap = limit / 2;
    }

    public void write(byte[] data, int off, int len) {
        total += len;
        int toHead = Math.min(len, headCap - headLen);
        if (toHead > 0) {
            ensureHead(headLen + toHead);
            System.arraycopy(data, off, head, headLen, toHead);
            headLen += toHead;
            off += toHead;
            len -= toHead;
        }
        if (len == 0 || tailCap == 0) {
            return;
        }
        if (len >= tailCap) {
            ensureTail(tailCap);
            System.arraycopy(data, off + len - tailCap, tail, 0, tailCap);
            tailStart = 0;
            tailLen = tailCap;
            return;
        }
        if (tailLen + len <= tailCap && tailStart == 0) {
            ensureTail(tailLen + len);
            System.arraycopy(data, off, tail, tailLen, len);
            tailLen += len;
            return;
        }
        ensureTail(tailCap);
        for (int i = 0; i < len; ) {
            int pos = (tailStart + tailLen) % tailCap;
            if (tailLen == tailCap) {
                pos = tailStart;
            }
            int n = Math.min(len - i, tailCap - pos);
            System.arraycopy(data, off + i, tail, pos, n);
            i += n;
            if (tailLen == tailCap) {
                tailStart = (tailStart + n) % tailCap;
            } else {
                int grow = Math.min(n, tailCap - tailLen);
                tailLen += grow;
                int over = n - grow;
                tailStart = (tailStart + over) % tailCap;
            }
        }
    }

    /** @return bytes dropped from the middle */
    public long dropped() {
        return total - headLen - tailLen;
    }

    /** @return head followed by tail, in stream order */
    public byte[] toByteArray() {
        byte[] out = Arrays.copyOf(head, headLen + tailLen);
        int first = Math.min(tailLen, tail.length - tailStart);
        System.arraycopy(tail, tailStart, out, headLen, first);
        System.arraycopy(tail, 0, out, headLen + first, tailLen - first);
        return out;
    }

    private void ensureHead(int need) {
        if (head.length < need) {
            head = Arrays.copyOf(head, Math.min(headCap, Math.max(need, head.length * 2)));
        }
    }

    private void ensureTail(int need) {
        if (tail.length < need) {
            // Only grows while the ring has not wrapped (tailStart == 0), so a plain copy keeps order.
            tail = Arrays.copyOf(tail, Math.min(tailCap, Math.max(need, tail.length * 2)));
        }
    }
}
