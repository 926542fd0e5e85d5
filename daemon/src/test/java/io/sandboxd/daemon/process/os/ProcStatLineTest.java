package io.sandboxd.daemon.process.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcStatLineTest {
    /** A real line of `cat` (fields after the name: state ppid pgrp session ... utime=5 stime=6 cutime=7 cstime=8 ... rss=409). */
    static final String TAIL = " R 22162 22162 11720 0 -1 4194304 100 0 0 0 5 6 7 8 20 0 1 0 342553 3133440 409"
            + " 18446744073709551615 94408049258496 94408049278377 140722012792992 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

    @Test
    void readsSessionCpuOfSelfAndReapedChildrenAndRss() {
        ProcStatLine l = ProcStatLine.parse("22196 (cat)" + TAIL);
        assertThat(l).isEqualTo(new ProcStatLine(22196, 11720, 5 + 6 + 7 + 8, 409));
    }

    @Test
    void commandNamesWithSpacesAndParenthesesDoNotShiftTheFields() {
        for (String comm : List.of("a b", "x) 1 2 (y", ")", "(", "((", "))", "tmux: server", "a  b", "")) {
            assertThat(ProcStatLine.parse("7 (" + comm + ")" + TAIL))
                    .as(comm)
                    .isEqualTo(new ProcStatLine(7, 11720, 26, 409));
        }
    }

    @Test
    void aZombieHasNoRssAndStillCounts() {
        String zombie = "9 (sh) Z 1 9 9 0 -1 4227148 0 0 0 0 3 1 0 0 20 0 1 0 1 0 0 18446744073709551615"
                + " 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
        assertThat(ProcStatLine.parse(zombie)).isEqualTo(new ProcStatLine(9, 9, 4, 0));
    }

    @Test
    void whatIsNotAStatLineIsRefused() {
        for (String bad : List.of(
                "",
                "x",
                "(cat)" + TAIL,
                "12 cat" + TAIL,
                "12 (cat)",
                "12 (cat) R 1 2 3",
                "abc (cat)" + TAIL,
                "12 (cat)" + TAIL.replace(" 409 ", " lots "),
                "12 (cat)" + TAIL.replace(" 11720 ", " s "))) {
            assertThatThrownBy(() -> ProcStatLine.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void everyLiveProcessOfThisMachineParses() throws Exception {
        int parsed = 0;
        try (var dir = Files.newDirectoryStream(
                Path.of("/proc"), p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path p : dir) {
                String line;
                try {
                    line = Files.readString(p.resolve("stat"));
                } catch (java.io.IOException e) {
                    continue; // gone meanwhile
                }
                ProcStatLine l = ProcStatLine.parse(line);
                assertThat(l.pid()).isEqualTo(Long.parseLong(p.getFileName().toString()));
                parsed++;
            }
        }
        assertThat(parsed).isPositive();
        long self = ProcessHandle.current().pid();
        ProcStatLine me = ProcStatLine.parse(Files.readString(Path.of("/proc/self/stat")));
        assertThat(me.pid()).isEqualTo(self);
        assertThat(me.rssPages()).isPositive();
        assertThat(me.cpuTicks()).isPositive();
    }
}
