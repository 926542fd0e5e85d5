package io.sandboxd.testkit.proc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcStatTest {
    @Test
    void parsesACommandNameWithSpacesAndParentheses() {
        ProcStat s = ProcStat.parse("4242 (we ird) (name)) Z 17 4243 4244 0 -1 4194560 0 0 0 0");
        assertThat(s).isEqualTo(new ProcStat(4242, "we ird) (name)", 'Z', 17, 4243, 4244));
        assertThat(s.zombie()).isTrue();
    }

    @Test
    void rejectsGarbage() {
        assertThatThrownBy(() -> ProcStat.parse("no parens here")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProcStat.parse("12 (x)")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProcStat.parse("12 (x) R y 1 1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readsThisJvmAndAGoneProcessIsEmpty() {
        ProcStat me = ProcStat.read(ProcessHandle.current().pid()).orElseThrow();
        assertThat(me.comm()).isEqualTo("java");
        assertThat(me.zombie()).isFalse();
        assertThat(me.ppid())
                .isEqualTo(ProcessHandle.current().parent().orElseThrow().pid());
        assertThat(ProcStat.read(Integer.MAX_VALUE)).isEmpty();
    }

    @Test
    void aChildStartedWithSetsidHasItsOwnSessionAndGroup() throws Exception {
        Process p = new ProcessBuilder("setsid", "sleep", "60").start();
        try {
            long pid = p.pid();
            // setsid forks when it is a group leader, else execs: the sleep is pid or its child.
            java.util.function.Supplier<java.util.Optional<ProcStat>> find = () -> ProcStat.read(pid)
                    .filter(s -> s.comm().equals("sleep"))
                    .or(() -> ProcessTable.read().childrenOf(pid).stream()
                            .filter(c -> c.comm().equals("sleep"))
                            .findFirst());
            io.sandboxd.testkit.Poll.await(
                    java.time.Duration.ofSeconds(20), () -> find.get().isPresent(), () -> "no sleep");
            ProcStat sleep = find.get().orElseThrow();
            assertThat(sleep.session()).isEqualTo(sleep.pid());
            assertThat(sleep.pgrp()).isEqualTo(sleep.pid());
            assertThat(sleep.session())
                    .isNotEqualTo(ProcStat.read(ProcessHandle.current().pid())
                            .orElseThrow()
                            .session());
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
        }
    }
}
