package io.sandboxd.daemon.code;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class OutputWindowTest {
    static String text(List<CodeOutput> out) {
        return out.stream()
                .filter(o -> o instanceof CodeOutput.Stream)
                .map(o -> ((CodeOutput.Stream) o).text())
                .collect(Collectors.joining());
    }

    @Test
    void underTheLimitEverythingPassesInOrder() {
        List<CodeOutput> out = new ArrayList<>();
        OutputWindow w = new OutputWindow(100, out::add);
        CodeOutput a = new CodeOutput.Stream(false, "abc");
        CodeOutput e = new CodeOutput.Error("E", "v", List.of("tb"));
        w.offer(a);
        w.offer(e);
        w.finish();
        assertThat(out).containsExactly(a, e);
    }

    @Test
    void aFloodKeepsHeadAndTailAndCountsTheMiddle() {
        List<CodeOutput> out = new ArrayList<>();
        OutputWindow w = new OutputWindow(10, out::add);
        for (char c = 'a'; c <= 'z'; c++) {
            w.offer(new CodeOutput.Stream(false, String.valueOf(c)));
        }
        w.finish();
        assertThat(text(out)).isEqualTo("abcdevwxyz");
        assertThat(out).contains(new CodeOutput.Truncation(16, 16));
        assertThat(out.indexOf(new CodeOutput.Truncation(16, 16))).isEqualTo(5);
    }

    @Test
    void aRichOutputLargerThanHalfIsDroppedWhole() {
        List<CodeOutput> out = new ArrayList<>();
        OutputWindow w = new OutputWindow(10, out::add);
        CodeOutput big = new CodeOutput.Rich(
                CodeOutput.RichKind.DISPLAY_DATA, List.of(MimeValue.binary("image/png", new byte[20])), "{}", 0, "");
        w.offer(big);
        w.offer(new CodeOutput.Stream(false, "ok"));
        w.finish();
        assertThat(out).doesNotContain(big).contains(new CodeOutput.Truncation(1, 22));
        assertThat(text(out)).isEqualTo("ok");
    }

    @Test
    void streamsAreCutOnCharacterBoundaries() {
        List<CodeOutput> out = new ArrayList<>();
        OutputWindow w = new OutputWindow(8, out::add);
        w.offer(new CodeOutput.Stream(false, "ééééé😀😀")); // 10 + 8 bytes
        w.finish();
        String kept = text(out);
        assertThat(kept).isEqualTo("éé😀");
        CodeOutput.Truncation t = (CodeOutput.Truncation) out.stream()
                .filter(o -> o instanceof CodeOutput.Truncation)
                .findFirst()
                .orElseThrow();
        assertThat(t.droppedBytes()).isEqualTo(18 - Utf8Length.of(kept));
    }

    @Property(tries = 300)
    void neverMoreThanTheLimitAndDroppedPlusKeptIsEverything(
            @ForAll @Size(max = 40) List<@StringLength(max = 30) String> chunks,
            @ForAll @IntRange(min = 2, max = 64) int limit) {
        List<CodeOutput> out = new ArrayList<>();
        OutputWindow w = new OutputWindow(limit, out::add);
        long total = 0;
        StringBuilder all = new StringBuilder();
        for (String c : chunks) {
            w.offer(new CodeOutput.Stream(false, c));
            total += Utf8Length.of(c);
            all.append(c);
        }
        w.finish();
        String kept = text(out);
        long dropped = out.stream()
                .filter(o -> o instanceof CodeOutput.Truncation)
                .mapToLong(o -> ((CodeOutput.Truncation) o).droppedBytes())
                .sum();
        assertThat(Utf8Length.of(kept)).isLessThanOrEqualTo(limit);
        assertThat(Utf8Length.of(kept) + dropped).isEqualTo(total);
        if (dropped == 0) {
            assertThat(kept).isEqualTo(all.toString());
        }
    }
}
