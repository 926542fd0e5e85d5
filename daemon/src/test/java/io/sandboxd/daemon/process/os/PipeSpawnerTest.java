package io.sandboxd.daemon.process.os;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class PipeSpawnerTest {
    /** An argument over the kernel's 128 KiB per string is the client's mistake: INVALID_ARGUMENT, not INTERNAL. */
    @Test
    void argumentTooLongForTheKernelIsAClientError() {
        String huge = "x".repeat(200 * 1024);
        assertThatThrownBy(() -> PipeSpawner.spawn(
                        Path.of("/bin/true"),
                        List.of("/bin/true", huge),
                        new byte[0][],
                        Path.of("/"),
                        false,
                        PosixSpawn.attributes(),
                        "failed to execute command"))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    org.assertj.core.api.Assertions.assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
                    org.assertj.core.api.Assertions.assertThat(e.getMessage()).contains("E2BIG");
                });
    }
}
