package io.sandboxd.daemon.code;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.daemon.process.OutputKind;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KernelOutputTailTest {
    private static void write(KernelOutputTail t, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        byte[] lent = new byte[b.length + 7]; // the reader lends a larger buffer than the chunk
        System.arraycopy(b, 0, lent, 0, b.length);
        t.onOutput(OutputKind.STDERR, lent, b.length);
    }

    @Test
    void nothingWrittenQuotesNothing() {
        KernelOutputTail t = new KernelOutputTail();
        assertThat(t.quoted()).isEmpty();
        write(t, "\n  \r\n\t\n");
        assertThat(t.quoted()).isEmpty();
    }

    @Test
    void theLastNonBlankLinesAreQuotedWithoutColourCodes() {
        KernelOutputTail t = new KernelOutputTail();
        write(t, "[I 12:00] starting\r\n\n");
        write(t, "\u001B[0;31mTraceback\u001B[0m (most recent call last):\n  File \"x\", line 1\nboom\u0007");
        assertThat(t.quoted())
                .isEqualTo("; its last output: [I 12:00] starting | Traceback (most recent call last): | "
                        + "File \"x\", line 1 | boom?");
    }

    @Test
    void onlyTheLastBytesAreKeptAcrossChunksThatWrapTheRing() {
        KernelOutputTail t = new KernelOutputTail();
        for (int i = 0; i < 1000; i++) {
            write(t, "line " + i + "\n");
        }
        String q = t.quoted();
        assertThat(q).startsWith("; its last output: ...").endsWith("line 998 | line 999");
        assertThat(q.length()).isEqualTo("; its last output: ...".length() + KernelOutputTail.QUOTED);
        assertThat(q).doesNotContain("line 10 |");
    }

    @Test
    void aChunkLargerThanTheRingKeepsItsEnd() {
        KernelOutputTail t = new KernelOutputTail();
        write(t, "old\n");
        write(t, "x".repeat(KernelOutputTail.CAPACITY * 2) + "\nthe end\n");
        assertThat(t.quoted()).endsWith("x | the end").doesNotContain("old");
        write(t, "after\n");
        assertThat(t.quoted()).endsWith("x | the end | after");
    }

    @Test
    void whatCameBeforeTheMarkIsLeftOut() {
        KernelOutputTail t = new KernelOutputTail();
        write(t, "To connect another client to this kernel, use:\n");
        t.mark();
        assertThat(t.quoted()).isEmpty();
        write(t, "Fatal Python error\n");
        assertThat(t.quoted()).isEqualTo("; its last output: Fatal Python error");
        write(t, "y".repeat(KernelOutputTail.CAPACITY) + "\n");
        assertThat(t.quoted()).doesNotContain("Fatal").endsWith("yyy");
    }

    @Test
    void aCutNeverSplitsACharacter() {
        KernelOutputTail t = new KernelOutputTail();
        for (int shift = 0; shift < 4; shift++) {
            write(t, "a".repeat(shift) + "😀".repeat(KernelOutputTail.QUOTED) + "\n");
            String q = t.quoted();
            String text = q.substring("; its last output: ...".length());
            assertThat(Character.isLowSurrogate(text.charAt(0)))
                    .as("shift %d", shift)
                    .isFalse();
        }
    }
}
