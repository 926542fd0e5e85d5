package io.sandboxd.daemon.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import org.junit.jupiter.api.Test;

class StdinBudgetTest {
    static final long MIB = 1024 * 1024;

    @Test
    void oneMessageIntoAnEmptyQueueAlwaysFitsMoreIsRefusedNamingTheLimit() throws Exception {
        StdinBudget b = new StdinBudget(16 * MIB);
        b.take(1, 0, 4 * MIB);
        assertThatThrownBy(() -> b.take(1, 4 * MIB, 1)).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(ErrorKind.RESOURCE_EXHAUSTED);
            assertThat(e.getMessage()).contains("limit is 4194304 bytes per process");
        });
        b.take(1, 3 * MIB, MIB); // up to the limit exactly
        assertThat(b.queued()).isEqualTo(5 * MIB);
    }

    @Test
    void theDaemonWideLimitHoldsAcrossProcessesAndIsGivenBack() throws Exception {
        StdinBudget b = new StdinBudget(8 * MIB);
        b.take(1, 0, 4 * MIB);
        b.take(2, 0, 4 * MIB);
        assertThatThrownBy(() -> b.take(3, 0, 1))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.getMessage())
                        .contains("daemon-wide limit of 8388608 bytes"));
        assertThat(b.queued()).isEqualTo(8 * MIB);
        b.release(4 * MIB);
        b.take(3, 0, 1);
        assertThat(b.queued()).isEqualTo(4 * MIB + 1);
    }
}
