package io.sandboxd.daemon.code;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Keeps at most {@code limit} bytes of an execution's outputs (runtime-contract §4.4), like
 * process.v1 Execute keeps stdout: the head (first half) goes out at once, then the most recent
 * outputs up to the other half are held back as the tail, and at the end a {@link
 * CodeOutput.Truncation} saying what was dropped between them (if anything was) precedes the tail.
 * Outputs are kept or dropped whole, except stream text, which is cut at the head's end and at
 * the tail's start. Memory: at most the tail's half. One thread (the kernel loop) uses it.
 */
final class OutputWindow {
    private record Held(CodeOutput output, long size) {}

    private final long headCap;
    private final long tailCap;
    private final Consumer<CodeOutput> emit;
    private final ArrayDeque<Held> tail = new ArrayDeque<>();
    private long headUsed;
    private boolean overflowed;
    private long tailUsed;
    private long droppedOutputs;
    private long droppedBytes;

    OutputWindow(long limit, Consumer<CodeOutput> emit) {
        this.headCap = limit - limit / 2;
        this.tailCap = limit / 2;
        this.emit = emit;
    }

    void offer(CodeOutput o) {
        long size = o.size();
        if (!overflowed) {
            if (headUsed + size <= headCap) {
                headUsed += size;
                emit.accept(o);
                return;
            }
            overflowed = true;
            if (o instanceof CodeOutput.Stream s) {
                int fit = charsFitting(s.text(), headCap - headUsed);
                if (fit > 0) {
                    CodeOutput.Stream head = s.prefix(fit);
                    headUsed += head.size();
                    emit.accept(head);
                    o = s.suffix(head.text().length());
                    size = o.size();
                }
            }
        }
        hold(o, size);
    }

    private void hold(CodeOutput o, long size) {
        if (size > tailCap) {
            if (!(o instanceof CodeOutput.Stream s)) {
                droppedOutputs++;
                droppedBytes += size;
                return;
            }
            int from = s.text().length() - charsFittingFromEnd(s.text(), tailCap);
            CodeOutput.Stream kept = s.suffix(from);
            droppedBytes += size - kept.size();
            o = kept;
            size = kept.size();
        }
        tail.addLast(new Held(o, size));
        tailUsed += size;
        while (tailUsed > tailCap) {
            Held first = tail.removeFirst();
            tailUsed -= first.size();
            droppedOutputs++;
            droppedBytes += first.size();
        }
    }

    /** Sends the truncation notice (if anything was dropped) and the tail. */
    void finish() {
        if (droppedOutputs > 0 || droppedBytes > 0) {
            emit.accept(new CodeOutput.Truncation(droppedOutputs, droppedBytes));
        }
        for (Held h : tail) {
            emit.accept(h.output());
        }
        tail.clear();
        tailUsed = 0;
    }

    long droppedBytes() {
        return droppedBytes;
    }

    /** How many leading characters of {@code s} fit in {@code bytes} of UTF-8. */
    static int charsFitting(String s, long bytes) {
        long used = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (used + n > bytes) {
                break;
            }
            used += n;
            i += Character.charCount(cp);
        }
        return i;
    }

    /** How many trailing characters of {@code s} fit in {@code bytes} of UTF-8. */
    static int charsFittingFromEnd(String s, long bytes) {
        long used = 0;
        int i = s.length();
        while (i > 0) {
            int cp = s.codePointBefore(i);
            int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (used + n > bytes) {
                break;
            }
            used += n;
            i -= Character.charCount(cp);
        }
        return s.length() - i;
    }
}
