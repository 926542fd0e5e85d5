package io.sandboxd.daemon.code;

import io.sandboxd.daemon.process.OutputKind;
import io.sandboxd.daemon.process.OutputSink;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The kernel process's own stdout and stderr, of which only the last {@link #CAPACITY} bytes are
 * kept. The code's output travels on iopub (ipykernel also captures what its subprocesses write
 * to fds 1 and 2); what comes here is the kernel's start-up and log chatter, and when a kernel
 * cannot start or dies, its last words ("No module named ipykernel_launcher", a fatal error):
 * they go into the error and the daemon's log instead of nowhere. Read continuously, so the
 * kernel never blocks on a full pipe. Written by the process's reader, read on the kernel loop.
 */
final class KernelOutputTail implements OutputSink {
    static final int CAPACITY = 4096;
    /** How much of the tail an error or log line quotes, in characters. */
    static final int QUOTED = 600;

    /** Colour and cursor sequences (ipykernel's log lines may carry them). */
    private static final Pattern ANSI = Pattern.compile("\\x1B\\[[0-9;?]*[ -/]*[@-~]");

    private final byte[] ring = new byte[CAPACITY];
    private long written;
    private long mark;

    @Override
    public boolean hasDemand() {
        return true;
    }

    @Override
    public boolean isClosed() {
        return false;
    }

    @Override
    public void onDemand(Runnable callback) {
        callback.run();
    }

    @Override
    public synchronized void onOutput(OutputKind kind, byte[] data, int length) {
        int from = Math.max(0, length - CAPACITY); // what a later byte of this chunk overwrites anyway
        written += from;
        for (int i = from; i < length; i++) {
            ring[(int) (written++ % CAPACITY)] = data[i];
        }
    }

    @Override
    public void onExit(int exitCode) {}

    /**
     * Leaves what was written so far out of {@link #quoted()}: a kernel that started says the same
     * every time (its IPython warnings, "To connect another client ..."), which says nothing about
     * why it died later.
     */
    synchronized void mark() {
        mark = written;
    }

    /**
     * "; its last output: LINE | LINE" with the last non-blank lines written since the mark (at most {@link #QUOTED}
     * characters, control characters shown as '?'), or "" when the kernel wrote nothing.
     */
    String quoted() {
        byte[] kept;
        synchronized (this) {
            int n = (int) Math.min(written - mark, CAPACITY);
            kept = new byte[n];
            for (int i = 0; i < n; i++) {
                kept[i] = ring[(int) ((written - n + i) % CAPACITY)];
            }
        }
        StringBuilder s = new StringBuilder();
        String text = ANSI.matcher(new String(kept, StandardCharsets.UTF_8)).replaceAll("");
        for (String line : text.split("\r?\n|\r")) {
            String t = line.strip();
            if (!t.isEmpty()) {
                if (s.length() > 0) {
                    s.append(" | ");
                }
                t.codePoints().forEach(c -> s.appendCodePoint(Character.isISOControl(c) ? '?' : c));
            }
        }
        if (s.length() == 0) {
            return "";
        }
        int cut = Math.max(0, s.length() - QUOTED);
        if (cut > 0 && Character.isLowSurrogate(s.charAt(cut))) {
            cut++;
        }
        return "; its last output: " + (cut == 0 ? "" : "...") + s.substring(cut);
    }
}
