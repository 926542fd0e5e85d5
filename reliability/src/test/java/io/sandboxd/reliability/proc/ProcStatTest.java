package io.sandboxd.reliability.proc;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProcStatTest {
    @Test
    void parsesACommandNameWithSpacesAndParentheses() {
        ProcStat s = ProcStat.parse("4242 (we ird) (name)) Z 17 4242 4242 0 -1 4194560 0 0 0 0");
        assertThat(s.pid()).isEqualTo(4242);
        assertThat(s.comm()).isEqualTo("we ird) (name)");
        assertThat(s.state()).isEqualTo('Z');
        assertThat(s.zombie()).isTrue();
        assertThat(s.ppid()).isEqualTo(17);
        assertThat(s.pgrp()).isEqualTo(4242);
        assertThat(s.session()).isEqualTo(4242);
    }

    @Test
    void rejectsGarbage() {
        assertThatThrownBy(() -> ProcStat.parse("no parens here")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readsThisJvm() {
        ProcStat me = ProcStat.read(ProcessHandle.current().pid()).orElseThrow();
        assertThat(me.state()).isNotEqualTo('Z');
        assertThat(me.ppid()).isEqualTo(ProcessHandle.current().parent().orElseThrow().pid());
    }
}
