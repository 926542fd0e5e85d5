package io.sandboxd.daemon.rest;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Tar archives built header by header, as a hostile client would: any name (absolute, with
 * {@code ..}, any bytes), any type, GNU long names and PAX records, no normalisation. Writing the
 * headers by hand is the point: a tar library would refuse or clean most of these.
 */
final class RawTar {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    RawTar file(String name, String content) {
        return entry(b(name), '0', 0644, b(content), new byte[0]);
    }

    RawTar file(byte[] name, int mode, byte[] content) {
        return entry(name, '0', mode, content, new byte[0]);
    }

    RawTar dir(String name, int mode) {
        return entry(b(name), '5', mode, new byte[0], new byte[0]);
    }

    RawTar symlink(String name, String target) {
        return entry(b(name), '2', 0777, new byte[0], b(target));
    }

    RawTar hardLink(String name, String target) {
        return entry(b(name), '1', 0644, new byte[0], b(target));
    }

    RawTar special(String name, char type) {
        return entry(b(name), type, 0644, new byte[0], new byte[0]);
    }

    /** A GNU long name ('L') then the entry under a short stand-in name. */
    RawTar longName(byte[] name, String content) {
        entry(b("././@LongLink"), 'L', 0644, Arrays.copyOf(name, name.length + 1), new byte[0]);
        return entry(b("short"), '0', 0644, b(content), new byte[0]);
    }

    /** A PAX header ('x') with {@code key=value}, then the entry under a stand-in name. */
    RawTar pax(String key, byte[] value, char type, String content, String linkTarget) {
        byte[] body = paxRecord(key, value);
        entry(b("PaxHeader/x"), 'x', 0644, body, new byte[0]);
        return entry(b("standin"), type, 0644, b(content), b(linkTarget));
    }

    static byte[] paxRecord(String key, byte[] value) {
        byte[] kv = new byte[key.length() + 2 + value.length];
        System.arraycopy(b(key), 0, kv, 0, key.length());
        kv[key.length()] = '=';
        System.arraycopy(value, 0, kv, key.length() + 1, value.length);
        kv[kv.length - 1] = '\n';
        int len = kv.length + 2;
        while (String.valueOf(len).length() + 1 + kv.length != len) {
            len++;
        }
        byte[] prefix = b(len + " ");
        byte[] all = Arrays.copyOf(prefix, prefix.length + kv.length);
        System.arraycopy(kv, 0, all, prefix.length, kv.length);
        return all;
    }

    /** A header whose size field says {@code size} but with only {@code content} following. */
    RawTar declared(String name, long size, byte[] content) {
        header(b(name), '0', 0644, size, new byte[0]);
        out.writeBytes(content);
        pad(content.length);
        return this;
    }

    RawTar entry(byte[] name, char type, int mode, byte[] content, byte[] link) {
        header(name, type, mode, content.length, link);
        out.writeBytes(content);
        pad(content.length);
        return this;
    }

    private void header(byte[] name, char type, int mode, long size, byte[] link) {
        byte[] h = new byte[512];
        System.arraycopy(name, 0, h, 0, Math.min(100, name.length));
        octal(h, 100, 8, mode);
        octal(h, 108, 8, 0);
        octal(h, 116, 8, 0);
        octal(h, 124, 12, size);
        octal(h, 136, 12, 1_700_000_000L);
        Arrays.fill(h, 148, 156, (byte) ' ');
        h[156] = (byte) type;
        System.arraycopy(link, 0, h, 157, Math.min(100, link.length));
        System.arraycopy(b("ustar\0" + "00"), 0, h, 257, 8);
        long sum = 0;
        for (byte x : h) {
            sum += x & 0xff;
        }
        octal(h, 148, 7, sum);
        out.writeBytes(h);
    }

    private static void octal(byte[] h, int at, int len, long v) {
        String s = Long.toOctalString(v);
        while (s.length() < len - 1) {
            s = "0" + s;
        }
        System.arraycopy(b(s), 0, h, at, len - 1);
        h[at + len - 1] = 0;
    }

    private void pad(int n) {
        int rem = n % 512;
        if (rem != 0) {
            out.writeBytes(new byte[512 - rem]);
        }
    }

    /** The archive with its end (two zero records). */
    byte[] bytes() {
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        copy.writeBytes(out.toByteArray());
        copy.writeBytes(new byte[1024]);
        return copy.toByteArray();
    }

    /** Without the end records (a truncated archive, cut at a header boundary). */
    byte[] unterminated() {
        return out.toByteArray();
    }
}
